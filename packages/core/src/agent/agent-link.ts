/**
 * One running agent as the host holds it: its exec channel, the requests waiting for replies, the
 * spawns and listeners waiting for events, and the streams in both directions. Whatever ends the
 * agent — it exits, the backend loses it, it sends garbage — settles everything at once: pending
 * requests reject with {@link AgentLostError}, streams fail, event handlers hear `lost`.
 */
import type { ProcessExit } from "../environment.js";
import { errorMessage } from "../errors.js";
import { concatBytes } from "../files/concat-bytes.js";
import { StreamTail } from "../process/stream-tail.js";
import type { ExecChannel } from "../remote/remote-executor.js";
import { delay } from "../timers/delay.js";
import {
  AGENT_PROTOCOL,
  AgentFrameDecoder,
  AgentProtocolError,
  CHUNK_BYTES,
  encodeJsonFrame,
  FrameKind,
  readCredit,
  readJson,
  WINDOW_BYTES,
  type AgentFrame,
} from "./agent-frames.js";
import { InboundStream, OutboundStream, type StreamLink } from "./agent-streams.js";
import { AgentWatchdog, type AgentWatchOptions } from "./agent-watchdog.js";

/** What the agent says about itself when it starts. */
export interface AgentHello {
  pid: number;
  python: string;
  /** True when it could become a child subreaper (Linux). */
  subreaper: boolean;
  /** The environment its commands start from (the backend's default exec environment). */
  env: Readonly<Record<string, string>>;
}

/** A request the agent refused, with the code it gave (FILE_NOT_FOUND, INVALID_PATH, FAILED, ...). */
export class AgentRequestError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "AgentRequestError";
    this.code = code;
  }
}

/** The agent is gone. `sent`: the request had been sent to it, so it may have acted on it. */
export class AgentLostError extends Error {
  readonly sent: boolean;

  constructor(message: string, sent: boolean) {
    super(message);
    this.name = "AgentLostError";
    this.sent = sent;
  }
}

/** The agent never said hello; `exit` is set when its process exited (rather than hanging or babbling). */
export class AgentStartError extends Error {
  readonly exit: ProcessExit | undefined;
  readonly stderr: string;

  constructor(why: string, exit: ProcessExit | undefined, stderr: string) {
    super(stderr ? `${why}: ${stderr}` : why);
    this.name = "AgentStartError";
    this.exit = exit;
    this.stderr = stderr;
  }
}

/** Hears a spawn's or a listener's events. */
export interface EventHandler {
  event(value: Record<string, unknown>): void;
  lost(error: AgentLostError): void;
}

interface PendingReply {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** How long the last stderr bytes of an agent that exited may take to arrive. */
const STDERR_GRACE_MS = 100;
/** How long the backend may take to report the exit of an agent whose output ended. */
const EXIT_GRACE_MS = 5_000;
/** How long the exit may take to say why, after the agent's output failed. */
const FAILED_OUTPUT_GRACE_MS = 500;

export class AgentLink implements StreamLink {
  readonly #channel: ExecChannel;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #outgoing: Uint8Array[] = [];
  #inputEnded = false;
  #pending = new Map<number, PendingReply>();
  #handlers = new Map<number, EventHandler>();
  #inbound = new Map<number, InboundStream>();
  #outbound = new Map<number, OutboundStream>();
  #nextId = 0;
  #lost: AgentLostError | undefined;
  #closing = false;
  #exit: ProcessExit | undefined;
  readonly #stderr: StreamTail;
  readonly #watchdog: AgentWatchdog;
  #hello: AgentHello | undefined;
  #greet!: (hello: AgentHello) => void;
  readonly #greeted: Promise<AgentHello>;
  #end!: (reason: string) => void;
  /** Resolves, with why, once the agent is gone; never rejects. */
  readonly ended: Promise<string>;

  /**
   * `boot` goes first on the agent's stdin: its bootstrap reads the agent's source from there.
   * `watch`: how an agent that stops answering is noticed (see `agent-watchdog.ts`).
   */
  constructor(channel: ExecChannel, boot: Uint8Array, watch?: AgentWatchOptions) {
    this.#channel = channel;
    this.#watchdog = new AgentWatchdog(
      {
        waiting: () => this.#pending.size > 0 || this.#handlers.size > 0 || this.#inbound.size > 0 || this.#outbound.size > 0,
        ping: () => this.request("ping", {}).reply,
        abandon: (reason) => this.#lose(reason),
      },
      watch,
    );
    this.#writer = channel.stdin.getWriter();
    this.#writer.write(boot).catch(() => {});
    this.#greeted = new Promise((resolve) => (this.#greet = resolve));
    this.ended = new Promise((resolve) => (this.#end = resolve));
    void this.#readFrames();
    this.#stderr = new StreamTail(channel.stderr);
    channel.exit.then(
      async (exit) => {
        this.#exit = exit;
        await Promise.race([this.#stderr.done, delay(STDERR_GRACE_MS, { unref: true })]);
        const said = this.#stderr.text;
        this.#lose(this.#closing ? "the agent was closed" : `the agent exited with code ${exit.exitCode}${said ? ` (${said})` : ""}`);
      },
      // The backend's own words: the container is gone, the connection dropped.
      (error: unknown) => this.#lose(errorMessage(error)),
    );
  }

  /** Resolves with the agent's hello; rejects when it exits, breaks the framing or stays silent for `timeoutMs`. */
  async started(timeoutMs: number): Promise<AgentHello> {
    const outcome = await Promise.race([
      this.#greeted,
      this.ended.then((reason) => ({ reason })),
      delay(timeoutMs, { unref: true }).then(() => ({ reason: `the agent did not start within ${timeoutMs} ms` })),
    ]);
    if ("pid" in outcome && this.#lost === undefined) return outcome;
    const reason = this.#lost?.message ?? ("reason" in outcome ? outcome.reason : "the agent was lost");
    throw new AgentStartError(reason, this.#exit, this.#stderr.text);
  }

  /** Why the agent is gone, or `undefined` while it runs. */
  get lostBecause(): string | undefined {
    return this.#lost?.message;
  }

  /** Sends a request; `handler` hears the events the agent sends about it (a spawn's exit, a listener's connections). */
  request(op: string, params: Record<string, unknown>, handler?: EventHandler): { id: number; reply: Promise<Record<string, unknown>> } {
    const id = this.#newId();
    if (this.#lost) return { id, reply: Promise.reject(new AgentLostError(this.#lost.message, false)) };
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    if (handler) {
      this.#handlers.set(id, handler);
      // A refused request (a spawn in a working directory that is not there) never gets an event:
      // its handler left behind would keep the watchdog pinging an idle agent, and give it up
      // after a stall nothing was waiting on.
      reply.catch(() => this.dropHandler(id));
    }
    this.send(encodeJsonFrame(FrameKind.request, id, { ...params, op }));
    return { id, reply };
  }

  /** A new stream from the agent (`id` when the agent numbered it). */
  inbound(id = this.#newId()): InboundStream {
    const stream = new InboundStream(id, this);
    if (this.#lost) stream.fail(this.#lost);
    else this.#inbound.set(id, stream);
    return stream;
  }

  /** A new stream to the agent (`id` when the agent numbered it). */
  outbound(id = this.#newId()): OutboundStream {
    const stream = new OutboundStream(id, this);
    if (this.#lost) stream.refuse(this.#lost);
    else this.#outbound.set(id, stream);
    return stream;
  }

  /** Gives the agent up as lost although its channel is open (it stopped answering). */
  abandon(reason: string): void {
    this.#lose(reason);
  }

  /** Stops handing events for `id` to its handler. */
  dropHandler(id: number): void {
    this.#handlers.delete(id);
  }

  /**
   * Queues a frame; the frames of one turn of the event loop go out in one write (a request and its
   * stdin's end, say), so a backend that wraps each write (an SSH packet, a syscall) pays once.
   */
  send(frame: Uint8Array): void {
    if (this.#lost || this.#inputEnded) return;
    this.#outgoing.push(frame);
    if (this.#outgoing.length === 1) queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    const frames = this.#outgoing;
    this.#outgoing = [];
    // A failed write means the agent is gone; its exit says why.
    if (!this.#lost && !this.#inputEnded) this.#writer.write(concatBytes(frames)).catch(() => {});
  }

  async drained(): Promise<void> {
    try {
      await this.#writer.ready;
    } catch {
      throw this.#lost ?? new AgentLostError("the agent's input failed", true);
    }
  }

  forget(id: number): void {
    this.#inbound.delete(id);
    this.#outbound.delete(id);
  }

  /**
   * Ends the agent: EOF on its stdin, upon which it ends everything it started and exits; after
   * `graceMs` without an exit the host side of its channel is dropped. Returns true when it exited.
   */
  async close(graceMs: number): Promise<boolean> {
    this.#closing = true;
    this.#endInput();
    const exited = await Promise.race([
      this.#channel.exit.then(
        () => true,
        () => true,
      ),
      delay(graceMs, { unref: true }).then(() => false),
    ]);
    this.#lose("the agent was closed");
    this.#channel.close();
    return exited;
  }

  /**
   * EOF on the agent's stdin, once; nothing is written after it (a write to a closed Web stream is
   * an error, and in some Node versions an internal assertion). Not awaited: a backend that stopped
   * answering may never take it.
   */
  #endInput(): void {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    this.#writer.close().catch(() => {});
  }

  #newId(): number {
    this.#nextId += 2;
    return this.#nextId;
  }

  async #readFrames(): Promise<void> {
    const decoder = new AgentFrameDecoder();
    const reader = this.#channel.stdout.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#watchdog.heard();
        for (const frame of decoder.push(value)) this.#dispatch(frame);
      }
      // Its output ends with it: its exit (or the backend's word on why it was lost) says more.
      await Promise.race([this.ended, delay(EXIT_GRACE_MS, { unref: true })]);
      this.#lose(this.#closing ? "the agent was closed" : "the agent's output ended");
    } catch (error) {
      if (error instanceof AgentProtocolError) {
        this.#lose(`the agent sent garbage (${error.message})`);
        return;
      }
      // A backend that loses the whole environment (a sandbox ended) fails the output and the exit
      // together: the exit's reason is the backend's own words, so it is given a moment to win.
      await Promise.race([this.ended, delay(FAILED_OUTPUT_GRACE_MS, { unref: true })]);
      this.#lose(`the agent's output failed (${errorMessage(error)})`);
    } finally {
      reader.releaseLock();
    }
  }

  #dispatch(frame: AgentFrame): void {
    const { kind, channel, payload } = frame;
    if (this.#hello === undefined && kind !== FrameKind.hello)
      throw new AgentProtocolError(`the agent sent a frame of kind ${kind} before its hello`);
    switch (kind) {
      case FrameKind.hello:
        return this.#onHello(readJson(payload, "a hello"));
      case FrameKind.reply:
        return this.#onReply(channel, readJson(payload, "a reply"));
      case FrameKind.event:
        return this.#handlers.get(channel)?.event(readJson(payload, "an event"));
      case FrameKind.data:
        return this.#inbound.get(channel)?.push(payload);
      case FrameKind.end:
        return this.#inbound.get(channel)?.end();
      case FrameKind.credit:
        return this.#outbound.get(channel)?.credit(readCredit(payload));
      case FrameKind.cancel:
        return this.#outbound.get(channel)?.refuse(new Error("the environment no longer reads this stream"));
      default:
        throw new AgentProtocolError(`the agent sent a frame of kind ${String(kind)} it may not send`);
    }
  }

  #onHello(value: Record<string, unknown>): void {
    if (this.#hello !== undefined) throw new AgentProtocolError("the agent said hello twice");
    const { protocol, pid, python, subreaper, window, chunk, env } = value;
    if (protocol !== AGENT_PROTOCOL) throw new AgentProtocolError(`the agent speaks protocol ${String(protocol)}, not ${AGENT_PROTOCOL}`);
    if (window !== WINDOW_BYTES || chunk !== CHUNK_BYTES) throw new AgentProtocolError("the agent's flow-control window differs from the host's");
    if (typeof pid !== "number" || typeof python !== "string" || typeof subreaper !== "boolean" || !isStringRecord(env)) {
      throw new AgentProtocolError("the agent sent a malformed hello");
    }
    this.#hello = { pid, python, subreaper, env };
    this.#watchdog.start();
    this.#greet(this.#hello);
  }

  #onReply(id: number, value: Record<string, unknown>): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) throw new AgentProtocolError(`the agent answered request ${id}, which is not waiting`);
    this.#pending.delete(id);
    if ("ok" in value && typeof value.ok === "object" && value.ok !== null) {
      pending.resolve(value.ok as Record<string, unknown>);
      return;
    }
    const error = value.error as { code?: unknown; message?: unknown } | undefined;
    const code = typeof error?.code === "string" ? error.code : "FAILED";
    pending.reject(new AgentRequestError(code, typeof error?.message === "string" ? error.message : "the agent refused the request"));
  }

  /** Settles everything, once: the agent is gone (or must be: garbage ends its stdin too). */
  #lose(reason: string): void {
    if (this.#lost) return;
    const lost = new AgentLostError(reason, true);
    this.#lost = lost;
    this.#watchdog.stop();
    const pending = this.#pending;
    const handlers = this.#handlers;
    const streams = [...this.#inbound.values(), ...this.#outbound.values()];
    this.#pending = new Map();
    this.#handlers = new Map();
    this.#inbound = new Map();
    this.#outbound = new Map();
    for (const reply of pending.values()) reply.reject(lost);
    for (const handler of handlers.values()) handler.lost(lost);
    for (const stream of streams) {
      if (stream instanceof InboundStream) stream.fail(lost);
      else stream.refuse(lost);
    }
    this.#endInput();
    this.#end(reason);
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && Object.values(value).every((entry) => typeof entry === "string");
}
