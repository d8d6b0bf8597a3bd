// One command started with TaskExecStart: a local child process in a process group of its own,
// its stdout/stderr buffered for TaskExecStdioRead, its stdin fed by TaskExecStdinWrite at the
// offsets the SDK sends, its exit reported by TaskExecWait/TaskExecPoll.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { OutputBuffer } from "./output-buffer.mjs";

export class FakeExec {
  /** @type {import("node:child_process").ChildProcess} */
  #child;
  /** Bytes of stdin taken so far (the next write's expected offset). */
  #stdinOffset = 0;
  #stdinClosed = false;
  /** @type {{ code?: number, signal?: number } | undefined} */
  exitStatus;
  /** @type {Promise<{ code?: number, signal?: number }>} */
  exited;

  /**
   * @param {{ argv: string[], cwd: string, env: Record<string, string>, pipeStdout: boolean, pipeStderr: boolean, timeoutSecs?: number }} spec
   */
  constructor(spec) {
    const [file, ...args] = spec.argv;
    this.#child = spawn(file ?? "", args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ["pipe", spec.pipeStdout ? "pipe" : "ignore", spec.pipeStderr ? "pipe" : "ignore"],
    });
    this.#child.stdin.on("error", () => {});
    this.stdout = new OutputBuffer(this.#child.stdout ?? undefined);
    this.stderr = new OutputBuffer(this.#child.stderr ?? undefined);
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code, signal) => resolve(signal ? { signal: constants.signals[signal] } : { code: code ?? 0 }));
      // A command that cannot be started at all: what a shell reports for a missing program.
      this.#child.once("error", () => {
        this.stdout.end();
        this.stderr.end();
        resolve({ code: 127 });
      });
    }).then((status) => (this.exitStatus = status));
    if (spec.timeoutSecs) {
      const timer = setTimeout(() => this.kill("SIGKILL"), spec.timeoutSecs * 1000);
      this.exited.then(() => clearTimeout(timer));
    }
  }

  /** The process group's id (the child's pid). */
  get pid() {
    return this.#child.pid;
  }

  /**
   * Takes stdin bytes written at `offset`: a repeat of bytes already taken (a retried write) is
   * skipped; a gap is refused. Resolves once the bytes are in the pipe.
   */
  async writeStdin(offset, data, eof) {
    if (offset > this.#stdinOffset) throw new Error(`stdin offset ${offset} is past the ${this.#stdinOffset} bytes written so far`);
    const fresh = data.subarray(Math.min(data.length, this.#stdinOffset - offset));
    this.#stdinOffset += fresh.length;
    const stdin = this.#child.stdin;
    // Input for a process that has closed its stdin (or ended) goes nowhere, as with a pipe.
    if (this.#stdinClosed || stdin.destroyed) return;
    if (fresh.length > 0 && !stdin.write(fresh)) {
      await new Promise((resolve) => {
        stdin.once("drain", resolve);
        stdin.once("close", resolve);
      });
    }
    if (eof) {
      this.#stdinClosed = true;
      stdin.end();
    }
  }

  /** Signals the whole process group. */
  kill(signal) {
    try {
      process.kill(-this.#child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
