import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** The built CLI, run the way a user runs it. */
export const BIN = fileURLToPath(new URL("../dist/bin.cjs", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The CLI was still running at `deadlineMs` and was killed. */
  killedAtDeadline: boolean;
}

export interface CliOptions {
  stdin?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with all stdout so far on every chunk, and the child (e.g. to send SIGINT). */
  onStdout?: (text: string, child: ChildProcess) => void;
  /** Called once with the child, as soon as it is started. */
  onStart?: (child: ChildProcess) => void;
  /** Kill the CLI (SIGKILL) if it is still running after this long; the run says so. */
  deadlineMs?: number;
}

/** Runs `codecall ARGS` with optional stdin. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    // Without the NODE_PATH of pnpm's shims (the test runner's): Node would find codecall's own
    // packages there as if the project had installed them, and the CLI would load those instead
    // of the ones its build carries (see module-loading.ts), which a user's run uses.
    const { NODE_PATH: _shims, ...env } = options.env ?? process.env;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killedAtDeadline = false;
    const deadline =
      options.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            killedAtDeadline = true;
            child.kill("SIGKILL");
          }, options.deadlineMs);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, child);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.stdin ?? "");
    options.onStart?.(child);
    child.on("close", (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr, killedAtDeadline });
    });
  });
}

/** Resolves with the number a script wrote to `file` (its pid), polling until it is there. */
export async function waitForPidFile(file: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (/^\d+\n$/.test(text)) return Number(text);
    if (Date.now() > deadline) throw new Error(`${file} did not get a pid within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True while a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
