/**
 * The environment's operations through a running agent: each one a request on the agent's open
 * stream (and, for commands and files, streams of their own) instead of a backend exec.
 *
 * Requests the agent refuses become the same errors as on the plain path (FILE_NOT_FOUND,
 * INVALID_PATH, FILE_TOO_LARGE, else ENVIRONMENT_FAILED); a lost agent surfaces as
 * {@link AgentLostError}, which `ExecEnvironment` turns into a retry or a clear error.
 */
import type { ExecOptions, ExecResult, ReadFileOptions, SocketConnection, SocketListener, SpawnOptions, WriteFileOptions } from "../environment.js";
import { CodecallError } from "../errors.js";
import { fileTooLarge } from "../files/bounded-read.js";
import { concatBytes } from "../files/concat-bytes.js";
import { collectProcess, toExecResult } from "../process/collect.js";
import { LiveProcesses } from "../process/live-processes.js";
import type { CommandLog } from "../remote/command-log.js";
import type { RemoteOperations } from "../remote/remote-operations.js";
import { assertEnvName } from "../text/shell-quote.js";
import { delay } from "../timers/delay.js";
import { AgentRequestError, type AgentHello, type AgentLink } from "./agent-link.js";
import { AgentListener } from "./agent-listener.js";
import { AgentProcess } from "./agent-process.js";

/** Grace between SIGTERM and SIGKILL when a command's `timeoutMs` runs out (as for plain execs). */
const TIMEOUT_GRACE_MS = 2_000;
/** How far past a command's own timeout (and grace) the host steps in, should the agent not have. */
const BACKSTOP_MARGIN_MS = 5_000;
/** How long closing waits for killed commands to report their end, and the agent to exit. */
const CLOSE_GRACE_MS = 2_000;

export class AgentOperations implements RemoteOperations {
  readonly #link: AgentLink;
  readonly #hello: AgentHello;
  readonly #backendId: string;
  readonly #log: CommandLog;
  readonly #live = new LiveProcesses<AgentProcess>();

  constructor(link: AgentLink, hello: AgentHello, backendId: string, log: CommandLog) {
    this.#link = link;
    this.#hello = hello;
    this.#backendId = backendId;
    this.#log = log;
  }

  async execute(command: string, options: ExecOptions): Promise<ExecResult> {
    const process = await this.spawn(command, options);
    const collected = await collectProcess(process, {
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    });
    return toExecResult(collected, process.timedOut);
  }

  /**
   * Starts a command under one of the agent's shepherds. A shepherd holds the command's whole
   * tree (see `agent_shepherd.py`), so `options.whenTreeHeld` is what runs, when given.
   */
  async spawn(command: string, options: SpawnOptions): Promise<AgentProcess> {
    const env = options.env ?? {};
    for (const name of Object.keys(env)) assertEnvName(name);
    const held = options.whenTreeHeld;
    const logged = this.#log.start(held?.command ?? command, options, "agent");
    const request = {
      command: held?.command ?? command,
      unpack: held?.unpack ?? null,
      env,
      clearEnv: options.clearEnv ?? false,
      cwd: options.cwd ?? null,
      timeoutMs: options.timeoutMs ?? null,
      graceMs: TIMEOUT_GRACE_MS,
    };
    let process: AgentProcess;
    try {
      process = await AgentProcess.start(this.#link, request, this.#backendId);
    } catch (error) {
      if (error instanceof AgentRequestError && error.code === "INVALID_PATH") {
        throw new CodecallError("INVALID_PATH", error.message, { details: { cwd: options.cwd } });
      }
      throw this.#failure(error, "could not start the command");
    }
    logged.track(process.wait());
    // The timeout is the agent's to enforce. The host keeps a late backstop, for an agent that stops
    // answering (a hung backend): its kill then goes unanswered, and the agent is given up.
    const backstop = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs + TIMEOUT_GRACE_MS + BACKSTOP_MARGIN_MS };
    return this.#live.add(process, { ...backstop, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  }

  async writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
    const stream = this.#link.outbound();
    const { reply } = this.#link.request("write_file", { path, mode: options.mode ?? null, stream: stream.id });
    const writer = stream.writable.getWriter();
    // A refused write cancels its stream: the reply says why.
    const written = writer.write(data).then(() => writer.close());
    written.catch(() => {});
    try {
      await reply;
    } catch (error) {
      throw this.#failure(error, `could not write ${path}`);
    }
  }

  async readFile(path: string, options: ReadFileOptions): Promise<Uint8Array> {
    const { maxBytes } = options;
    const stream = this.#link.inbound();
    const { reply } = this.#link.request("read_file", { path, maxBytes: maxBytes ?? null, stream: stream.id });
    const collecting = collectBytes(stream.readable, maxBytes === undefined ? Infinity : maxBytes + 1);
    collecting.catch(() => {});
    try {
      await reply;
    } catch (error) {
      if (error instanceof AgentRequestError && error.code === "FILE_TOO_LARGE") throw fileTooLarge(path, maxBytes!);
      throw this.#failure(error, `could not read ${path}`);
    }
    const bytes = await collecting;
    // Checked here too: what the agent says is not trusted to bound the host's memory.
    if (maxBytes !== undefined && (bytes === undefined || bytes.length > maxBytes)) throw fileTooLarge(path, maxBytes);
    if (bytes === undefined) return new Uint8Array(0);
    // A plain Uint8Array, as from every other backend: frames cut from a backend's Buffer chunks
    // (Modal's SDK hands Buffers) would otherwise surface as a Buffer (a subclass that, e.g.,
    // JSON-serialises differently).
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async tempDir(root: string | undefined): Promise<string> {
    try {
      const { path } = await this.#link.request("mkdtemp", { root: root ?? null }).reply;
      if (typeof path !== "string" || !path.startsWith("/")) throw new AgentRequestError("FAILED", `no directory (it said ${String(path)})`);
      return path;
    } catch (error) {
      throw this.#failure(error, "could not make a temp dir");
    }
  }

  async remove(path: string): Promise<void> {
    try {
      await this.#link.request("remove", { path }).reply;
    } catch (error) {
      throw this.#failure(error, `could not remove ${path}`);
    }
  }

  async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return this.#hello.env;
  }

  async listenUnix(path: string, onConnection: (connection: SocketConnection) => void): Promise<SocketListener> {
    try {
      return await AgentListener.open(this.#link, path, onConnection);
    } catch (error) {
      throw this.#failure(error, `could not listen on ${path}`);
    }
  }

  /** Kills every command still running, gives them a moment to report their end, then ends the agent. */
  async close(): Promise<void> {
    const killed = this.#live.killAll();
    await Promise.race([killed, delay(CLOSE_GRACE_MS, { unref: true })]);
    await this.#link.close(CLOSE_GRACE_MS);
  }

  /** A refusal as the plain path reports it; anything else (a lost agent) unchanged. */
  #failure(error: unknown, what: string): unknown {
    if (!(error instanceof AgentRequestError)) return error;
    if (error.code === "FILE_NOT_FOUND" || error.code === "INVALID_PATH") return new CodecallError(error.code, error.message);
    return new CodecallError("ENVIRONMENT_FAILED", `${this.#backendId}: ${what}: ${error.message}`);
  }
}

/** Every byte of `stream`; `undefined` (the stream cancelled) once it holds more than `limit`. */
async function collectBytes(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limit) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks);
}
