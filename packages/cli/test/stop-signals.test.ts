// SIGTERM and SIGHUP (a `kill`, a closed terminal, a supervisor stopping us) stop a run the way
// Ctrl-C does: the script's process is killed, the result says `interrupted` (with its `error`),
// and the CLI exits with 128 + the signal's number once it has cleaned up.
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processAlive, runCli, waitForPidFile } from "./support.js";

/** A script that records its pid in `file`, then sleeps far longer than any test waits. */
function sleeper(file: string): string {
  return `import os, time\nwith open(${JSON.stringify(file)}, "w") as f:\n    f.write("%d\\n" % os.getpid())\ntime.sleep(600)\n`;
}

describe("codecall run stopped by a signal", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-signals-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const)(
    "kills the script on %s, reports it interrupted with an error, and exits %i",
    async (signal, exitCode) => {
      const pidFile = path.join(dir, `${signal}.pid`);
      let pid: number | undefined;
      const signalled = (child: ChildProcess) =>
        void waitForPidFile(pidFile).then((found) => {
          pid = found;
          child.kill(signal);
        });
      const result = await runCli(["run", "--json", "-"], { stdin: sleeper(pidFile), onStart: signalled, deadlineMs: 120_000 });
      expect(result.killedAtDeadline).toBe(false);
      expect(result.code).toBe(exitCode);
      const json = JSON.parse(result.stdout) as Record<string, unknown>;
      const by = signal === "SIGINT" ? "Ctrl-C" : signal;
      expect(json).toMatchObject({ status: "interrupted", error: `Script was interrupted: interrupted by ${by}` });
      expect(pid).toBeDefined();
      expect(processAlive(pid!)).toBe(false);
    },
    150_000,
  );
});
