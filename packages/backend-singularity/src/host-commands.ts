/**
 * The apptainer CLI's processes on this machine: each call a child process in a process group of
 * its own (core's HostProcess ends its whole tree), its timeout armed, all of them ended on close.
 * The CLI runs with the host's environment; `--cleanenv` on every exec keeps it out of the instance.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs";
import { readdir } from "node:fs/promises";
import { constants } from "node:os";
import { Readable, Writable } from "node:stream";
import { CodecallError, type ExecResult } from "@codecall/core";
import {
  collectProcess,
  LiveProcesses,
  newRunId,
  startHostProcess,
  toExecResult,
  TREE_TAG_VARIABLE,
  type HostProcess,
  type ProcessHost,
} from "@codecall/core/backend-kit";

/** Node's signals and process table, as core's HostProcess uses them. */
const NODE_HOST: ProcessHost = {
  kill: (pid, signal) => process.kill(pid, signal),
  readdir,
  // The callback readFile: fs/promises' costs several times more per small file, and a sweep reads
  // one or two files of every process on the host.
  readFile: (path, encoding) => new Promise((resolve, reject) => readFile(path, encoding, (error, text) => (error ? reject(error) : resolve(text)))),
  procfs: process.platform === "linux",
  signalNumbers: constants.signals,
};

export class HostCommands {
  readonly #live = new LiveProcesses<HostProcess>();
  #closed = false;

  /** Starts `file args...`; past `timeoutMs` it is ended (TERM, then KILL). Rejects when it cannot start. */
  async start(file: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<HostProcess> {
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "The singularity environment is closed");
    const tag = newRunId();
    const child = spawn(file, args, { env: { ...process.env, [TREE_TAG_VARIABLE]: tag }, detached: true, stdio: "pipe" });
    // The CLI may exit without reading its stdin; the EPIPE that follows is not an error to crash on.
    child.stdin.on("error", () => {});
    const stdio = {
      stdin: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      stdout: Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
      stderr: Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>,
    };
    return this.#live.add(await startHostProcess(child, stdio, { file, tag, host: NODE_HOST }), options);
  }

  /** Runs `file args...` to its end and collects its output. */
  async run(file: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    const process = await this.start(file, args, options);
    return toExecResult(await collectProcess(process), process.timedOut);
  }

  /** Ends every CLI process still running; nothing starts after this. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#live.killAll();
  }
}
