/**
 * One command in a Daytona session, as the ExecChannel core's remote executor drives.
 *
 * - Run to completion (`execute`, helpers, kills): the channel waits for stdin to close, embeds
 *   all of it in the command, and makes one synchronous session call that returns the output
 *   and the exit. One API call per command (the session is reused).
 * - Streaming (`spawn`: the script, the stream transport's relay): the command starts
 *   asynchronously with the stdin written so far (core's header) embedded; later stdin goes as
 *   session input, output arrives on the SDK's log WebSocket, and the bridge's end marks say when
 *   the command ended. Lines the stream dropped (output-order.ts) are read from the stored log; a
 *   log stream that ends early is caught up from the stored log and reopened (skipping what
 *   arrived); a daemon that says the command ended settles it.
 *
 * The daemon never kills a session command on its own, and core enforces timeouts inside the
 * sandbox, so no call here carries a timeout that could drop output.
 */
import { CodecallError, errorMessage, type ProcessExit } from "@codecall/core";
import type { ExecChannel, ExecRequest } from "@codecall/core/backend-kit";
import type { SandboxProcess, SessionLogs } from "./daytona-sdk.js";
import { statusOf } from "./daytona-errors.js";
import type { LivenessWatch, WatchedCommand } from "./liveness-watch.js";
import { demultiplexLog, type StreamName } from "./output-decoder.js";
import { OutputOrder, type LiveMark } from "./output-order.js";
import { END_OF_INPUT, inputLines, sessionCommand } from "./session-command.js";
import type { SessionPool } from "./session-pool.js";

/** What a command needs of its environment. */
export interface SessionHost {
  readonly process: SandboxProcess;
  readonly pool: SessionPool;
  readonly watch: LivenessWatch;
  /** The error a failed SDK call means for a command: the sandbox's state when it is gone, else the call's failure. */
  failure(error: unknown, what: string): Promise<CodecallError>;
}

/** Raw stdin bytes per input call (1.4 MB of base64 lines). */
const INPUT_CALL_BYTES = 1024 * 1024;

/** Unsent stdin past which a write waits for the input calls to catch up. */
const INPUT_HIGH_WATER_BYTES = 4 * INPUT_CALL_BYTES;

/** Times a log stream that ended early is reopened before the command counts as lost. */
const MAX_REOPENS = 5;

export class SessionExec implements ExecChannel, WatchedCommand {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exit: Promise<ProcessExit>;
  readonly #host: SessionHost;
  readonly #argv: readonly string[];
  readonly #streaming: boolean;
  readonly #output = new OutputOrder((stream, bytes) => this.#enqueue(stream, bytes));
  readonly #controllers = {} as Record<StreamName, ReadableStreamDefaultController<Uint8Array>>;
  #settle!: { resolve: (exit: ProcessExit) => void; reject: (error: unknown) => void };
  #settled = false;
  #lastActivity = performance.now();
  // stdin
  #input: Uint8Array[] = [];
  #inputBytes = 0;
  /** `closed` once the writer closed stdin, `sent` once the command has been told. */
  #inputState: "open" | "closed" | "sent" = "open";
  #inputError: CodecallError | undefined;
  #pumping: Promise<void> | undefined;
  // the command in the daemon
  #launched = false;
  #session: string | undefined;
  #commandId: string | undefined;
  #generation = 0;
  #reopens = 0;
  #catchingUp = false;
  /** A read of the stored log for lines the live stream dropped: running, and whether to read again after it. */
  #filling = false;
  #fillAgain = false;

  constructor(host: SessionHost, request: ExecRequest) {
    this.#host = host;
    this.#argv = request.argv;
    this.#streaming = request.streaming === true;
    this.exit = new Promise<ProcessExit>((resolve, reject) => (this.#settle = { resolve, reject }));
    this.exit.catch(() => {});
    this.stdout = new ReadableStream<Uint8Array>({ start: (controller) => void (this.#controllers.stdout = controller) });
    this.stderr = new ReadableStream<Uint8Array>({ start: (controller) => void (this.#controllers.stderr = controller) });
    this.stdin = new WritableStream<Uint8Array>({
      write: (chunk) => this.#write(chunk),
      close: () => this.#closeInput(),
      abort: () => this.#closeInput(),
    });
    // A streaming command starts once the bytes written with it (core's header) are in; one run
    // to completion starts when its stdin is complete.
    if (this.#streaming) setImmediate(() => void this.#launch());
  }

  get lastActivity(): number {
    return this.#lastActivity;
  }

  /** Drops the host side: output stops, the exit rejects if it has not come. The command itself goes on. */
  close(): void {
    this.#fail(new CodecallError("ENVIRONMENT_FAILED", "daytona: the command's channel was closed"));
  }

  lost(error: CodecallError): void {
    this.#fail(error);
  }

  async poke(): Promise<void> {
    const session = this.#session;
    const commandId = this.#commandId;
    if (this.#settled || session === undefined || commandId === undefined) return;
    try {
      const { exitCode } = await this.#host.process.getSessionCommand(session, commandId);
      if (exitCode !== undefined) await this.#catchUp();
    } catch {
      // The watch's own check decides whether the sandbox is gone.
    }
  }

  async #launch(): Promise<void> {
    if (this.#launched || this.#settled) return;
    this.#launched = true;
    const { process, pool } = this.#host;
    // Watched from the first call on: a session created in a sandbox deleted meanwhile may never be answered.
    this.#host.watch.add(this);
    let session: string | undefined;
    try {
      session = await pool.acquire();
      // Closed or lost while the session was made: nothing is to run.
      if (this.#settled) return pool.release(session);
      this.#session = session;
      const stdin = concat(this.#input.splice(0));
      this.#inputBytes = 0;
      const command = sessionCommand(this.#argv, stdin, this.#inputState === "closed", this.#streaming);
      if (!this.#streaming) {
        const result = await process.executeSessionCommand(session, { command, runAsync: false, suppressInputEcho: true });
        this.#read(result);
        this.#end(result.exitCode);
        pool.release(session);
        return;
      }
      // Everything written so far went with the command; an early close too.
      if (this.#inputState === "closed") this.#inputState = "sent";
      const { cmdId } = await process.executeSessionCommand(session, { command, runAsync: true, suppressInputEcho: true });
      this.#commandId = cmdId;
      this.#pump();
      this.#follow();
    } catch (error) {
      if (session !== undefined) pool.discard(session);
      this.#fail(await this.#host.failure(error, "running a command"));
    }
  }

  /** Opens the log stream of the command (again), skipping what arrived before. */
  #follow(): void {
    const generation = (this.#generation += 1);
    const reader = this.#output.liveReader();
    const take = (via: StreamName) => (text: string) => {
      // Throwing makes the SDK close a socket that is not wanted any more.
      if (generation !== this.#generation || this.#settled) throw new Error("codecall: log stream no longer followed");
      this.#lastActivity = performance.now();
      reader(via, text);
      if (this.#output.wanting) void this.#fill();
      else if (this.#output.complete) this.#end(undefined);
    };
    this.#host.process.getSessionCommandLogs(this.#session!, this.#commandId!, take("stdout"), take("stderr")).then(
      () => this.#streamEnded(generation),
      () => this.#streamEnded(generation),
    );
  }

  #streamEnded(generation: number): void {
    if (generation === this.#generation && !this.#settled) void this.#catchUp();
  }

  /** The live stream left a gap (or brought a line only the stored log places): read the stored log until nothing is wanting. */
  async #fill(): Promise<void> {
    if (this.#filling) {
      this.#fillAgain = true;
      return;
    }
    this.#filling = true;
    try {
      do {
        this.#fillAgain = false;
        await this.#readStored();
      } while (!this.#settled && (this.#fillAgain || this.#output.wanting));
      if (!this.#settled && this.#output.complete) this.#end(undefined);
    } catch (error) {
      this.#fail(error instanceof CodecallError ? error : await this.#host.failure(error, "reading a command's output"));
    } finally {
      this.#filling = false;
    }
  }

  /** The log stream ended before the command's end marks: read the stored log, then settle or reopen. */
  async #catchUp(): Promise<void> {
    if (this.#catchingUp || this.#settled) return;
    this.#catchingUp = true;
    const session = this.#session!;
    const commandId = this.#commandId!;
    try {
      await this.#readStored();
      if (this.#settled) return;
      if (this.#output.complete && !this.#output.wanting) return this.#end(undefined);
      const { exitCode } = await this.#host.process.getSessionCommand(session, commandId);
      if (exitCode !== undefined) {
        // Ended, and the stored log is complete: whatever marks are missing will not come.
        await this.#readStored();
        this.#end(exitCode);
      } else if (this.#reopens < MAX_REOPENS) {
        this.#reopens += 1;
        this.#follow();
      } else {
        this.#fail(new CodecallError("ENVIRONMENT_FAILED", `daytona: the log stream of a command broke off ${MAX_REOPENS + 1} times`));
      }
    } catch (error) {
      this.#fail(error instanceof CodecallError ? error : await this.#host.failure(error, "reading a command's output"));
    } finally {
      this.#catchingUp = false;
    }
  }

  /** Reads the stored log and takes what it holds beyond what was delivered. */
  async #readStored(): Promise<void> {
    const since = this.#output.mark();
    const logs = await this.#host.process.getSessionCommandLogs(this.#session!, this.#commandId!);
    if (!this.#settled) this.#read(logs, since);
  }

  /** A whole stored log (or a synchronous result): what it holds beyond what was delivered. */
  #read(logs: SessionLogs, since?: LiveMark): void {
    let { stdout = "", stderr = "" } = logs;
    if (!stdout && !stderr && logs.output) ({ stdout, stderr } = demultiplexLog(logs.output));
    this.#lastActivity = performance.now();
    this.#output.reliable(stdout, stderr, since);
  }

  /** The command ended: with the bridge's status, else the daemon's. */
  #end(daemonExitCode: number | undefined): void {
    if (this.#settled) return;
    const exitCode = this.#output.status ?? daemonExitCode;
    if (exitCode === undefined) {
      this.#fail(new CodecallError("ENVIRONMENT_FAILED", "daytona: a command ended without an exit status"));
      return;
    }
    this.#output.flush();
    this.#settled = true;
    this.#host.watch.delete(this);
    this.#closeStreams();
    this.#settle.resolve({ exitCode });
    if (this.#streaming && this.#session !== undefined) this.#host.pool.release(this.#session);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#host.watch.delete(this);
    this.#output.flush();
    this.#closeStreams();
    this.#settle.reject(error);
    // A session whose command is unaccounted for is not reused.
    if (this.#streaming && this.#session !== undefined) this.#host.pool.discard(this.#session);
  }

  #enqueue(name: StreamName, bytes: Uint8Array): void {
    try {
      this.#controllers[name].enqueue(bytes);
    } catch {
      // The reader cancelled the stream (it stopped listening); the bytes have nowhere to go.
    }
  }

  #closeStreams(): void {
    for (const controller of Object.values(this.#controllers)) {
      try {
        controller.close();
      } catch {
        // Already closed or cancelled by the reader.
      }
    }
  }

  async #write(chunk: Uint8Array): Promise<void> {
    if (this.#inputError !== undefined) throw this.#inputError;
    if (this.#settled) return;
    this.#input.push(chunk.slice());
    this.#inputBytes += chunk.length;
    if (this.#commandId === undefined) return;
    this.#pump();
    if (this.#inputBytes > INPUT_HIGH_WATER_BYTES) await this.#pumping;
  }

  async #closeInput(): Promise<void> {
    if (this.#inputState !== "open") return;
    this.#inputState = "closed";
    // A command run to completion starts now, with all of its stdin; closing does not wait for it.
    if (!this.#streaming) return void this.#launch();
    if (this.#commandId !== undefined) {
      this.#pump();
      await this.#pumping;
    }
  }

  /** Sends the waiting stdin (and the end of it, once closed) as session input, one call at a time, in order. */
  #pump(): void {
    if (this.#pumping || this.#settled || !this.#hasInputToSend()) return;
    this.#pumping = this.#sendInput().finally(() => {
      this.#pumping = undefined;
      // Written while the last call was finishing.
      this.#pump();
    });
  }

  #hasInputToSend(): boolean {
    return this.#inputError === undefined && (this.#input.length > 0 || this.#inputState === "closed");
  }

  async #sendInput(): Promise<void> {
    try {
      while (!this.#settled && this.#hasInputToSend()) {
        const chunks = takeBytes(this.#input, INPUT_CALL_BYTES);
        const sent = chunks.reduce((total, chunk) => total + chunk.length, 0);
        const lines = inputLines(concat(chunks));
        const closing = this.#inputState === "closed" && this.#input.length === 0;
        if (closing) lines.push(END_OF_INPUT);
        await this.#host.process.sendSessionCommandInput(this.#session!, this.#commandId!, lines.join("\n"));
        this.#inputBytes -= sent;
        if (closing) this.#inputState = "sent";
      }
    } catch (error) {
      if (this.#settled) return;
      this.#inputError = new CodecallError("ENVIRONMENT_FAILED", `daytona: sending stdin failed: ${errorMessage(error)}`);
      // Input to a command that has just ended is refused (410): its exit is on the way. Any other
      // failure may have lost bytes the command was owed — a request to the environment agent, a
      // frame of the stream transport — and nothing would ever answer them: the command is lost.
      if (statusOf(error) !== 410) this.#fail(await this.#host.failure(error, "sending a command's input"));
    }
  }
}

/** Removes up to `limit` bytes from the front of `chunks` (splitting one if needed). */
function takeBytes(chunks: Uint8Array[], limit: number): Uint8Array[] {
  const taken: Uint8Array[] = [];
  let size = 0;
  while (chunks.length > 0 && size < limit) {
    const chunk = chunks[0]!;
    if (size + chunk.length <= limit) {
      taken.push(chunks.shift()!);
      size += chunk.length;
    } else {
      taken.push(chunk.subarray(0, limit - size));
      chunks[0] = chunk.subarray(limit - size);
      size = limit;
    }
  }
  return taken;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
