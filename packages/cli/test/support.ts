import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI, run the way a user runs it. */
export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `codecall ARGS` with optional stdin; `onStart` gets the child (e.g. to send SIGINT). */
export function runCli(args: string[], options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv; onStdout?: (text: string, child: ChildProcess) => void } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, child);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.stdin ?? "");
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
