// A script run under a name (executeCode's `scriptName`, the CLI's script path): the launcher
// compiles it under that name. Run for real with python3.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { launchScriptCommand } from "../src/guest/launcher.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-script-name-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Runs `source` (text, or bytes as they are) as the run dir's script.py, named `name` (or not), from `cwd` (by default a working directory where no file has that name), with `env` added to the environment. */
async function runNamed(
  source: string | Uint8Array,
  name?: string,
  { cwd = tmpdir(), env = {} }: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = path.join(dir, "script.py");
  await writeFile(script, source);
  const child = spawn("sh", ["-c", launchScriptCommand("python3", script, undefined, name)], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("a script run under its own name", () => {
  it("tracebacks and warnings name it, show its source lines, and hide the runner", async () => {
    const result = await runNamed('import warnings\nwarnings.warn("careful")\ndef f():\n    raise ValueError("boom")\nf()\n', "my_script.py");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'my_script.py:2: UserWarning: careful\n  warnings.warn("careful")',
        "Traceback (most recent call last):",
        '  File "my_script.py", line 5, in <module>\n    f()',
        '  File "my_script.py", line 4, in f\n    raise ValueError("boom")',
        "ValueError: boom\n",
      ].join("\n"),
    );
  });

  it("shows the script's own lines even where a file of that name holds others", async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), "codecall-script-name-cwd-"));
    try {
      await writeFile(path.join(elsewhere, "my_script.py"), "# not the script\n# still not\n");
      const result = await runNamed("x = 1\nraise ValueError('boom')\n", "my_script.py", { cwd: elsewhere });
      expect(result.stderr).toBe(
        "Traceback (most recent call last):\n  File \"my_script.py\", line 2, in <module>\n    raise ValueError('boom')\nValueError: boom\n",
      );
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("shows lines decoded by the script's own coding declaration, from a stack the script prints itself", async () => {
    const source = Buffer.concat([
      Buffer.from("# -*- coding: latin-1 -*-\nimport traceback\ns = '"),
      Buffer.from([0xe9]),
      Buffer.from("'; traceback.print_stack()\n"),
    ]);
    const result = await runNamed(source, "accents.py");
    expect(result).toMatchObject({ code: 0, stdout: "" });
    // The stack's last frame is the script's (the runner's frames lead it).
    expect(result.stderr.endsWith("  File \"accents.py\", line 3, in <module>\n    s = '\u00e9'; traceback.print_stack()\n")).toBe(true);
  });

  it("leaves linecache as Python loads it and no finder of its own behind once linecache is imported", async () => {
    const result = await runNamed(
      "import sys\nbefore = len(sys.meta_path)\nimport linecache\nprint(type(linecache.__loader__).__name__, linecache.__spec__.loader is linecache.__loader__, len(sys.meta_path) == before - 1)\nprint(repr(linecache.getline('named.py', 1)))\n",
      "named.py",
    );
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe("SourceFileLoader True True\n'import sys\\n'\n");
  });

  it("shows its lines when a start-up hook imported linecache before the runner started", async () => {
    const hooks = await mkdtemp(path.join(tmpdir(), "codecall-script-name-hooks-"));
    try {
      await writeFile(path.join(hooks, "sitecustomize.py"), "import linecache\n");
      await writeFile(path.join(hooks, "early.py"), "# not the script\n# still not\n# nor this\n");
      const result = await runNamed("import sys\nprint('linecache' in sys.modules)\nraise ValueError('early')\n", "early.py", {
        cwd: hooks,
        env: { PYTHONPATH: hooks },
      });
      expect(result.stdout).toBe("True\n");
      expect(result.stderr).toContain("  File \"early.py\", line 3, in <module>\n    raise ValueError('early')\n");
    } finally {
      await rm(hooks, { recursive: true, force: true });
    }
  });

  it("a syntax error is reported as Python reports one in a file, under the name", async () => {
    const result = await runNamed("x = (\n", "scripts/bad.py");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ {2}File "scripts\/bad\.py", line 1\n {4}x = \(\n {8}\^\nSyntaxError: /);
    expect(result.stderr).not.toContain("Traceback");
  });

  it("runs as __main__ with __file__ and argv[0] the real copy, so pickling and __file__-relative paths work", async () => {
    const result = await runNamed(
      "import os, pickle, sys\nclass A: pass\nprint(__name__, os.path.exists(__file__), sys.argv == [__file__], len(pickle.dumps(A())) > 0)\nprint(sorted(k for k in globals() if k.startswith('_') and k != '__builtins__'))\n",
      "my_script.py",
    );
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(
      "__main__ True True True\n['__cached__', '__doc__', '__file__', '__loader__', '__name__', '__package__', '__spec__']\n",
    );
  });

  it("keeps the exit status of sys.exit and the script's own output", async () => {
    const result = await runNamed("print('out')\nraise SystemExit(7)\n", "x.py");
    expect(result).toMatchObject({ code: 7, stdout: "out\n", stderr: "" });
  });

  it("without a name the run dir's copy is named, as before", async () => {
    const result = await runNamed("raise ValueError('plain')\n");
    expect(result.stderr).toContain(`File "${path.join(dir, "script.py")}", line 1`);
  });
});
