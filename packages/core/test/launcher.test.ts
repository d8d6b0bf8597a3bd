// The script launcher run for real (Linux, python3): it passes the script's status on and ends
// every process the script left, also those no process group, parent or env tag leads to.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { launchScriptCommand } from "../src/guest/launcher.js";
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

async function launch(source: string, interpreter = "python3"): Promise<Launched> {
  const script = path.join(dir, "script.py");
  await writeFile(script, source);
  const child = spawn("sh", ["-c", launchScriptCommand(interpreter, script)], { stdio: ["ignore", "pipe", "inherit"] });
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

  it("gives the script the interpreter's flags and its arguments", async () => {
    const { done } = await launch("import sys\nprint(sys.flags.dev_mode, sys.argv[0].endswith('script.py'))", "python3 -X dev");
    expect((await done).stdout).toBe("True True\n");
  }, 30_000);

  it("ends a helper that left the group and cleared its env when the script exits", async () => {
    const pidFile = path.join(dir, "helper.pid");
    const { done } = await launch(escapedHelper(pidFile));
    expect(await done).toMatchObject({ code: 0, stdout: "script done\n" });
    expect(await processGone(Number(await readFile(pidFile, "utf8")))).toBe(true);
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
