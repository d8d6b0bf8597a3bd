// The script launcher run for real (Linux, python3): it passes the script's status on and ends
// every process the script left, also those no process group, parent or env tag leads to.
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storedZip, type ZipEntry } from "../src/files/stored-zip.js";
import { launchScriptCommand, scriptLaunch } from "../src/guest/launcher.js";
import { availablePythons } from "./support/available-pythons.js";
import { processGone } from "./support/process-gone.js";

interface Launched {
  pid: number;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-launcher-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function launch(source: string, interpreter = "python3", env?: NodeJS.ProcessEnv, cwd?: string): Promise<Launched> {
  const script = path.join(dir, "script.py");
  await writeFile(script, source);
  const child = spawn("/bin/sh", ["-c", launchScriptCommand(interpreter, script)], {
    stdio: ["ignore", "pipe", "inherit"],
    cwd,
    ...(env ? { env } : {}),
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  // `close`: also every copy of stdout is gone, which a leftover helper would hold open.
  const done = new Promise<Awaited<Launched["done"]>>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout })));
  return { pid: child.pid!, done };
}

async function waitForFile(file: string): Promise<string> {
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text !== "") return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A helper in its own session, double-forked, with an empty env, holding stdout; writes its pid to PIDFILE. */
const escapedHelper = (pidFile: string) => `
import os, subprocess, sys, time
helper = "import os, sys, time\\nif os.fork(): sys.exit(0)\\nos.setsid()\\nopen(sys.argv[1], 'w').write(str(os.getpid()))\\ntime.sleep(300)"
subprocess.Popen([sys.executable, "-c", helper, ${JSON.stringify(pidFile)}], env={}, start_new_session=True)
while not os.path.exists(${JSON.stringify(pidFile)}) or not open(${JSON.stringify(pidFile)}).read():
    time.sleep(0.05)
print("script done", flush=True)
`;

describe.runIf(process.platform === "linux")("script launcher", () => {
  it("exits with the script's exit code and keeps its output", async () => {
    const { done } = await launch('print("out")\nraise SystemExit(3)');
    expect(await done).toMatchObject({ code: 3, stdout: "out\n" });
  }, 30_000);

  it("dies of the signal that killed the script", async () => {
    const { done } = await launch("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)");
    expect((await done).signal).toBe("SIGTERM");
  }, 30_000);

  it("dies of SIGKILL too, which has no handler to reset (a kernel killed from outside)", async () => {
    const { done } = await launch("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)");
    const ended = await done;
    expect(ended.signal).toBe("SIGKILL");
    expect(ended.stdout).toBe("");
  });

  it.each([
    ["under the launcher", undefined],
    ["run directly (--direct)", "direct"],
  ])(
    "dies of SIGINT after an uncaught KeyboardInterrupt, %s, as a script does",
    async (_how, direct) => {
      // Python ends itself by SIGINT only if the hook that reports the error imports nothing.
      const script = path.join(dir, "script.py");
      await writeFile(script, "raise KeyboardInterrupt\n");
      const command = direct ? scriptLaunch("python3", script).whenTreeHeld.command : launchScriptCommand("python3", script);
      const run = spawnSync("sh", ["-c", command], { encoding: "utf8" });
      expect(run.signal).toBe("SIGINT");
      expect(run.stderr).toMatch(/^Traceback \(most recent call last\):\n[\s\S]*\nKeyboardInterrupt\n$/);
      expect(run.stderr).not.toContain("codecall launcher");
    },
    30_000,
  );

  it("leaves nothing frozen in the script: the garbage collector sees what was made before it started", async () => {
    const { done } = await launch("import gc\nitems = []\nprint(gc.get_freeze_count(), any(r is globals() for r in gc.get_referrers(items)))");
    expect(await done).toMatchObject({ code: 0, stdout: "0 True\n" });
  }, 30_000);

  it("gives the script the interpreter's flags and its arguments", async () => {
    const { done } = await launch("import sys\nprint(sys.flags.dev_mode, sys.argv[0].endswith('script.py'))", "python3 -X dev");
    expect((await done).stdout).toBe("True True\n");
  }, 30_000);

  it("runs the script in an environment without PATH, where Python cannot tell its own path (sys.executable is empty)", async () => {
    // The shell finds python3 on its built-in path; the launcher must not need sys.executable.
    const { done } = await launch("import os\nprint('ran', 'PATH' in os.environ)", "python3", { LANG: "C.UTF-8" });
    expect(await done).toMatchObject({ code: 0, stdout: "ran False\n" });
  }, 30_000);

  it("puts the script's directory first on the module path and leaves none of its own names to the script", async () => {
    const { done } = await launch(
      "import os, sys\nprint(sys.path[0] == os.path.dirname(__file__), sorted(k for k in globals() if not k.startswith('__') and k not in ('os', 'sys')))",
    );
    expect(await done).toMatchObject({ code: 0, stdout: "True []\n" });
  }, 30_000);

  describe.each(availablePythons())("under %s", (version, python) => {
    const minor = Number(version.split(".")[1]);
    // sys.orig_argv, which a fresh interpreter is started from (older ones fork, see launcher.py).
    const fromThreeTen = minor >= 10;
    // -P and PYTHONSAFEPATH.
    const fromThreeEleven = minor >= 11;

    /** A machine start-up hook (sitecustomize.py) made of `source`, in a directory of its own: PYTHONPATH for it. */
    async function machineHook(source: string): Promise<string> {
      const machine = path.join(dir, "machine");
      await mkdir(machine);
      await writeFile(path.join(machine, "sitecustomize.py"), source);
      return machine;
    }

    const report =
      "import os, sys\nprint(sys.path[0] == os.path.dirname(__file__), os.environ.get('PYTHONSAFEPATH'), 'CODECALL_SAFE_PATH' in os.environ)";

    it("imports nothing from the working directory before the script (3.13's -c imports linecache from there), and leaves the env as it was", async () => {
      const work = path.join(dir, "work");
      await mkdir(work);
      await writeFile(path.join(work, "linecache.py"), 'raise SystemExit("the working directory\'s linecache.py was imported")\n');
      const { done } = await launch(report, python, { PATH: process.env.PATH }, work);
      expect(await done).toMatchObject({ code: 0, stdout: "True None False\n" });
    }, 30_000);

    it("keeps the environment's own PYTHONSAFEPATH, and what it means: the script's directory is not first on the module path", async () => {
      const { done } = await launch(report, python, { PATH: process.env.PATH, PYTHONSAFEPATH: "1" });
      expect(await done).toMatchObject({ code: 0, stdout: `${fromThreeEleven ? "False" : "True"} 1 False\n` });
    }, 30_000);

    it(`runs the script ${fromThreeTen ? "in an interpreter of its own" : "in a fork (Python < 3.10 cannot tell its own command line)"} when Python's start-up files left a thread running in the launcher`, async () => {
      // A machine's sitecustomize that starts a thread (a tracer's, a metrics agent's): in a fork
      // the thread would not run, and Python 3.12+ warns that forking a threaded process may deadlock.
      const machine = await machineHook(
        'import os, threading, time\nhook_pid = os.getpid()\nthreading.Thread(target=time.sleep, args=(30,), name="machine-hook", daemon=True).start()\n',
      );
      const script = path.join(dir, "script.py");
      await writeFile(
        script,
        'import os, sys, threading, sitecustomize\nprint(sitecustomize.hook_pid == os.getpid(), any(t.name == "machine-hook" for t in threading.enumerate()), sys.path[0] == os.path.dirname(__file__))\nraise SystemExit(5)\n',
      );
      const run = spawnSync("sh", ["-c", launchScriptCommand(python, script)], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, PYTHONPATH: machine },
      });
      expect(run).toMatchObject({ status: 5, stdout: fromThreeTen ? "True True True\n" : "False False True\n", stderr: "" });
    }, 30_000);

    // Python < 3.10 runs the script in a fork (no sys.orig_argv to start one from), whose SIGTERM
    // is tested above for every version.
    it.runIf(fromThreeTen)(
      "passes SIGTERM on to a script in an interpreter of its own",
      async () => {
        const machine = await machineHook("import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n");
        const ready = path.join(dir, "ready");
        const { pid, done } = await launch(`import time\nopen(${JSON.stringify(ready)}, "w").write("up")\ntime.sleep(30)\n`, python, {
          PATH: process.env.PATH,
          PYTHONPATH: machine,
        });
        await waitForFile(ready);
        process.kill(pid, "SIGTERM");
        expect((await done).signal).toBe("SIGTERM");
      },
      30_000,
    );

    it("keeps -P and -I, which leave the script's directory off the module path too", async () => {
      for (const flags of fromThreeEleven ? ["-P", "-BP", "-I", "-X dev -P", "--check-hash-based-pycs default -P"] : ["-I"]) {
        const { done } = await launch(report, `${python} ${flags}`, { PATH: process.env.PATH });
        expect(await done, flags).toMatchObject({ code: 0, stdout: "False None False\n" });
      }
      const { done } = await launch(report, `${python} -X pycache_prefix=/tmp/P -W ignore`, { PATH: process.env.PATH });
      expect(await done).toMatchObject({ code: 0, stdout: "True None False\n" });
    }, 30_000);

    it("survives stop signals a thread of a C library's takes (Python does not count those), and passes them on", async () => {
      // pthread_create straight from libc: threading and _thread know nothing of it; with the
      // signals unblocked there, a default SIGTERM on it would end the launcher.
      const machine = await machineHook(
        "import ctypes\nlibc = ctypes.CDLL(None)\nthread = ctypes.c_ulong()\nlibc.pthread_create(ctypes.byref(thread), None, ctypes.cast(libc.sleep, ctypes.c_void_p), ctypes.c_void_p(30))\n",
      );
      const ready = path.join(dir, "ready");
      const { pid, done } = await launch(
        `import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nopen(${JSON.stringify(ready)}, "w").write("up")\ntime.sleep(1)\nprint("script done")\n`,
        python,
        { PATH: process.env.PATH, PYTHONPATH: machine },
      );
      await waitForFile(ready);
      for (let sent = 0; sent < 50; sent += 1) process.kill(pid, "SIGTERM");
      expect(await done).toMatchObject({ code: 0, signal: null, stdout: "script done\n" });
    }, 30_000);

    // Only a fresh interpreter is started by path: under Python < 3.10 the script runs in a fork.
    it.runIf(fromThreeTen)(
      "starts the interpreter that runs, whatever PATH a start-up file left",
      async () => {
        const fake = path.join(dir, "fakebin");
        await mkdir(fake);
        await writeFile(path.join(fake, path.basename(python)), "#!/bin/sh\nexit 42\n", { mode: 0o755 });
        const machine = await machineHook(
          `import os, threading, time\nos.environ["PATH"] = ${JSON.stringify(fake)} + os.pathsep + os.environ["PATH"]\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n`,
        );
        const { done } = await launch('print("the script ran")', python, { PATH: process.env.PATH, PYTHONPATH: machine });
        expect(await done).toMatchObject({ code: 0, stdout: "the script ran\n" });
      },
      30_000,
    );

    it("ends when a start-up file's thread takes the script's status (it waits for any child), and says so", async () => {
      const machine = await machineHook(
        "import os, threading, time\ndef wait_any():\n    while True:\n        try:\n            os.wait()\n        except ChildProcessError:\n            time.sleep(0.001)\nthreading.Thread(target=wait_any, daemon=True).start()\n",
      );
      for (let round = 0; round < 6; round += 1) {
        const script = path.join(dir, "script.py");
        await writeFile(script, "import time\ntime.sleep(0.05)\n");
        const run = spawnSync("sh", ["-c", launchScriptCommand(python, script)], {
          encoding: "utf8",
          env: { PATH: process.env.PATH, PYTHONPATH: machine },
          timeout: 10_000,
        });
        // Either the launcher reaped it first (0), or it knows the status is gone (1).
        expect(run.error, `round ${round}`).toBeUndefined();
        if (run.status === 1) expect(run.stderr).toContain("the script's exit status was taken by another thread");
        else expect(run).toMatchObject({ status: 0, stderr: "" });
      }
    }, 90_000);
  });

  it("keeps Python's own Ctrl-C in the script: SIGINT, passed on, raises KeyboardInterrupt there", async () => {
    const ready = path.join(dir, "ready");
    const { pid, done } = await launch(
      `import time\nopen(${JSON.stringify(ready)}, "w").write("yes")\ntry:\n    time.sleep(30)\nexcept KeyboardInterrupt:\n    print("interrupted")\n`,
    );
    await waitForFile(ready);
    process.kill(pid, "SIGINT");
    expect(await done).toMatchObject({ code: 0, stdout: "interrupted\n" });
  }, 30_000);

  it("ends a helper that left the group and cleared its env when the script exits", async () => {
    const pidFile = path.join(dir, "helper.pid");
    const { done } = await launch(escapedHelper(pidFile));
    expect(await done).toMatchObject({ code: 0, stdout: "script done\n" });
    expect(await processGone(Number(await readFile(pidFile, "utf8")))).toBe(true);
  }, 30_000);

  it("adopts what the script orphans (a child subreaper) without importing the ctypes package", async () => {
    const script = path.join(dir, "script.py");
    // The grandchild outlives its parent: it is re-parented to the nearest subreaper, the launcher.
    await writeFile(
      script,
      "import os, time\nlauncher = os.getppid()\nif os.fork() == 0:\n    if os.fork() == 0:\n        time.sleep(0.2)\n        print(os.getppid() == launcher, flush=True)\n    os._exit(0)\ntime.sleep(0.6)\n",
    );
    // -S: the script's interpreter imports nothing a machine's site files might add, so every
    // `ctypes` import that -X importtime reports would be the launcher's (~10 ms of every run).
    const run = spawnSync("sh", ["-c", launchScriptCommand("python3 -X importtime -S", script)], { encoding: "utf8" });
    expect(run).toMatchObject({ status: 0, stdout: "True\n" });
    expect(run.stderr).toMatch(/\|\s+_ctypes$/m);
    expect(run.stderr).not.toMatch(/\|\s+ctypes$/m);
  }, 30_000);

  it("passes SIGTERM on and exits like the script where Python has no sigwaitinfo (macOS)", async () => {
    const hooks = await mkdtemp(path.join(tmpdir(), "codecall-launcher-hooks-"));
    try {
      // The interpreter's own start-up hook takes it away before the launcher runs.
      await writeFile(path.join(hooks, "sitecustomize.py"), "import _signal\ndel _signal.sigwaitinfo\n");
      const ready = path.join(dir, "ready");
      const { pid, done } = await launch(
        `import _signal, time\nopen(${JSON.stringify(ready)}, "w").write(str(hasattr(_signal, "sigwaitinfo")))\ntime.sleep(30)\n`,
        "python3",
        { ...process.env, PYTHONPATH: hooks },
      );
      expect(await waitForFile(ready)).toBe("False");
      process.kill(pid, "SIGTERM");
      expect((await done).signal).toBe("SIGTERM");
    } finally {
      await rm(hooks, { recursive: true, force: true });
    }
  }, 30_000);

  it("passes SIGTERM on to such a helper", async () => {
    const pidFile = path.join(dir, "helper.pid");
    const { pid, done } = await launch(`${escapedHelper(pidFile)}\nimport time\ntime.sleep(300)`);
    const helper = Number(await waitForFile(pidFile));
    process.kill(pid, "SIGTERM");
    expect((await done).signal).toBe("SIGTERM");
    expect(await processGone(helper)).toBe(true);
  }, 30_000);
});

describe.runIf(process.platform === "linux")("script launcher with the run's archive", () => {
  /** Writes `entries` as the run's archive in the test dir and launches script.py from it. */
  async function launchArchive(entries: ZipEntry[], env: NodeJS.ProcessEnv = {}, interpreter = "python3") {
    const archive = path.join(dir, "run.zip");
    await writeFile(archive, storedZip(entries));
    const command = launchScriptCommand(interpreter, path.join(dir, "script.py"), archive);
    return spawnSync("sh", ["-c", command], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: "1", ...env },
    });
  }

  it("writes the archive's files beside it, private, and runs the script, which imports them", async () => {
    const run = await launchArchive([
      { name: "helper.py", data: "GREETING = 'from the helper'\n" },
      { name: "script.py", data: "import helper\nprint(helper.GREETING)\n" },
    ]);
    expect(run).toMatchObject({ status: 0, stdout: "from the helper\n", stderr: "" });
    expect((await readdir(dir)).sort()).toEqual(["helper.py", "run.zip", "script.py"]);
    expect((await stat(path.join(dir, "helper.py"))).mode & 0o777).toBe(0o600);
    expect(await readFile(path.join(dir, "script.py"), "utf8")).toBe("import helper\nprint(helper.GREETING)\n");
  }, 30_000);

  it("runs the archive's start-up hook (sitecustomize.py) once, in the script's own process", async () => {
    const run = await launchArchive([
      {
        name: "sitecustomize.py",
        data: "import os\nopen(os.path.join(os.path.dirname(__file__), 'hook.log'), 'a').write(str(os.getpid()) + '\\n')\n",
      },
      { name: "script.py", data: "import os\nprint(os.getpid())\n" },
    ]);
    expect(run).toMatchObject({ status: 0, stderr: "" });
    expect(await readFile(path.join(dir, "hook.log"), "utf8")).toBe(run.stdout);
  }, 30_000);

  it("runs the archive's start-up hook in the script's own interpreter, started because a start-up file left a thread, also under -E", async () => {
    // -E: Python ignores PYTHONPATH, so the fresh interpreter does not import the run's hook itself.
    // The thread comes from the user's site (usercustomize), which -E does not turn off.
    const home = path.join(dir, "home");
    const userSite = spawnSync("python3", ["-c", "import site; print(site.getusersitepackages())"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: home },
    });
    await mkdir(userSite.stdout.trim(), { recursive: true });
    await writeFile(
      path.join(userSite.stdout.trim(), "usercustomize.py"),
      "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n",
    );
    const run = await launchArchive(
      [
        {
          name: "sitecustomize.py",
          data: "import os\nopen(os.path.join(os.path.dirname(__file__), 'hook.log'), 'a').write(str(os.getpid()) + '\\n')\n",
        },
        { name: "script.py", data: "import os, threading\nprint(os.getpid())\nprint(threading.active_count() > 1)\n" },
      ],
      { HOME: home },
      "python3 -E",
    );
    expect(run).toMatchObject({ status: 0, stderr: "" });
    const [scriptPid, threadInScript] = run.stdout.split("\n");
    expect(await readFile(path.join(dir, "hook.log"), "utf8")).toBe(`${scriptPid}\n`);
    expect(threadInScript).toBe("True");
  }, 30_000);

  it.each([
    ["buffered", "262144 False"],
    ["lines", "8192 True"],
  ])(
    "with the guest's start-up hook and CODECALL_OUTPUT=%s, the script's stdout writes %s",
    async (mode, expected) => {
      // Nobody streams the output: blocks of 256 KiB (Python's own are 8 KiB).
      // Someone does: a write per line.
      const hook = await readFile(new URL("../src/guest/python/sitecustomize.py", import.meta.url), "utf8");
      const run = await launchArchive(
        [
          { name: "sitecustomize.py", data: hook },
          { name: "script.py", data: "import sys\nprint(sys.stdout._CHUNK_SIZE, sys.stdout.line_buffering)\n" },
        ],
        { CODECALL_OUTPUT: mode },
      );
      expect(run).toMatchObject({ status: 0, stdout: `${expected}\n`, stderr: "" });
    },
    30_000,
  );

  it("passes on a SIGTERM that comes while it prepares the script, which then never runs", async () => {
    // A start-up hook that takes a while to compile holds the launcher between its unpacking and
    // the fork: a kill then must end the run, not be passed on to no one.
    const hook = Array.from({ length: 200_000 }, (_, index) => `x${index} = ${index}`).join("\n");
    const marker = path.join(dir, "ran");
    const archive = path.join(dir, "run.zip");
    await writeFile(
      archive,
      storedZip([
        { name: "sitecustomize.py", data: hook },
        { name: "script.py", data: `open(${JSON.stringify(marker)}, "w").write("ran")\n` },
      ]),
    );
    const child = spawn("/bin/sh", ["-c", launchScriptCommand("python3", path.join(dir, "script.py"), archive)], { stdio: "ignore" });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    while (
      !(await stat(path.join(dir, "script.py")).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 2));
    // Unpacked; the hook's compile (~1 s) has begun: the kill lands in it, whatever the load.
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill("SIGTERM");
    expect(await ended).toBe("SIGTERM");
    expect(
      await stat(marker).then(
        () => "ran",
        () => "never ran",
      ),
    ).toBe("never ran");
  }, 30_000);

  it("stays the subreaper when the run's files hold a module named _ctypes (a tools module may be)", async () => {
    const run = await launchArchive([
      { name: "_ctypes.py", data: "raise ImportError('the planted _ctypes')\n" },
      {
        name: "script.py",
        data: "import os, time\nlauncher = os.getppid()\nif os.fork() == 0:\n    if os.fork() == 0:\n        time.sleep(0.2)\n        print(os.getppid() == launcher, flush=True)\n    os._exit(0)\ntime.sleep(0.6)\n",
      },
    ]);
    expect(run).toMatchObject({ status: 0, stdout: "True\n", stderr: "" });
  }, 30_000);

  it("refuses an entry that names another directory, and runs nothing", async () => {
    const run = await launchArchive([
      { name: "../escaped.py", data: "" },
      { name: "script.py", data: "print('ran')\n" },
    ]);
    expect(run).toMatchObject({ status: 1, stdout: "" });
    expect(run.stderr).toBe(
      `codecall: cannot unpack the run's files from ${path.join(dir, "run.zip")}: an entry it cannot unpack: '../escaped.py'\n`,
    );
    expect(await readdir(path.dirname(dir))).not.toContain("escaped.py");
  }, 30_000);

  it("never writes over a file that is already there", async () => {
    await writeFile(path.join(dir, "script.py"), "print('planted')\n");
    const run = await launchArchive([{ name: "script.py", data: "print('ran')\n" }]);
    expect(run).toMatchObject({ status: 1, stdout: "" });
    expect(run.stderr).toMatch(/^codecall: cannot unpack the run's files from .*run\.zip: \[Errno 17\] File exists/);
  }, 30_000);
});
