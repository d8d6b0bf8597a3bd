// A reader that goes away (`codecall run x.py | head -1`, a closed terminal) stops the run as a
// SIGPIPE stops a shell pipeline: the script is killed rather than left printing into nothing,
// the environment is closed, and the CLI exits 141 (128 + SIGPIPE) with one line, no stack trace.
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processAlive, runCli, waitForPidFile } from "./support.js";

/**
 * The process is gone: it does not exist, or it is dead and only waits to be reaped (a kernel
 * whose parent ended is reaped by init, in its own time).
 */
async function ended(pid: number): Promise<boolean> {
  if (!processAlive(pid)) return true;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || /\) Z /.test(stat);
}

/** A script that records its pid in `file`, then prints a line every 10 ms, forever. */
function printer(file: string): string {
  return [
    "import os, time",
    `with open(${JSON.stringify(file)}, "w") as f:`,
    '    f.write("%d\\n" % os.getpid())',
    "while True:",
    '    print("tick", flush=True)',
    "    time.sleep(0.01)",
    "",
  ].join("\n");
}

/** An `onStdout` that closes the CLI's stdout (its reader goes away) when the first output arrives. */
function closeStdoutAtFirstOutput(): (text: string, child: ChildProcess) => void {
  let closed = false;
  return (_text, child) => {
    if (closed) return;
    closed = true;
    child.stdout!.destroy();
  };
}

describe("codecall run whose stdout is closed", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-closed-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("stops the script and exits 141 once nobody reads its output", async () => {
    const pidFile = path.join(dir, "printer.pid");
    const script = path.join(dir, "printer.py");
    await writeFile(script, printer(pidFile));
    const result = await runCli(["run", script], {
      deadlineMs: 120_000,
      onStdout: closeStdoutAtFirstOutput(),
    });
    expect(result.killedAtDeadline).toBe(false);
    expect(result.code).toBe(141);
    expect(result.stderr).toContain("codecall: stdout was closed");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await ended(await waitForPidFile(pidFile))).toBe(true);
  }, 150_000);

  it("ends codecall repl too: the running cell is stopped, the session closed, exit 141", async () => {
    const pidFile = path.join(dir, "repl.pid");
    const result = await runCli(["repl", "--no-builtin-tools"], {
      stdin: printer(pidFile),
      deadlineMs: 120_000,
      onStdout: closeStdoutAtFirstOutput(),
    });
    expect(result.killedAtDeadline).toBe(false);
    expect(result.code).toBe(141);
    expect(result.stderr).toContain("codecall: stdout was closed");
    expect(await ended(await waitForPidFile(pidFile))).toBe(true);
  }, 150_000);

  it("exits 141 when the JSON result cannot be written", async () => {
    const result = await runCli(["run", "--json", "-"], {
      stdin: 'print("x" * 1000000)\n',
      deadlineMs: 120_000,
      onStart: (child) => child.stdout!.destroy(),
    });
    expect(result.killedAtDeadline).toBe(false);
    expect(result.code).toBe(141);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 150_000);
});
