/**
 * Backpressure for one byte-stream connection (a socket, a relayed connection): a guest that
 * pipelines requests and never reads the answers must not grow the host's memory. Requests are
 * decoded into a queue and started only while fewer than `maxRunning` calls run and fewer than
 * `maxPendingBytes` of answers wait to be delivered; the transport stops reading the connection
 * while the queue holds anything (see {@link CallFlow.wantsInput}), so what the host holds for one
 * connection is bounded by the running calls, the pending window and one chunk of requests.
 *
 * What all of a run's connections hold together is bounded too (see `connection-budget.ts`): a
 * connection past the run's limit gets one error answer and is ended, and unfinished frames share
 * one byte budget.
 */
import type { ByteBudget } from "./connection-budget.js";
import { FrameDecoder } from "./frame-decoder.js";
import type { RpcConnection } from "../rpc/dispatcher.js";

/** Calls one connection may have running at once (a thread pool of 10, `asyncio.gather` of a few dozen). */
export const DEFAULT_MAX_RUNNING_CALLS = 16;
/** Bytes of answers one connection may leave unread before the host starts no more of its calls. */
export const DEFAULT_MAX_PENDING_ANSWER_BYTES = 2 * 1024 * 1024;

/** How a {@link CallFlow} reaches its transport. */
export interface CallFlowOptions {
  /** The connection's protocol state machine. */
  rpc: RpcConnection;
  /** The run's frame limit. */
  maxFrameBytes: number;
  /** Delivers one answer frame (newline included) to the guest. */
  send(answer: string): void;
  /** Bytes of answers sent but not yet taken by the guest, as the transport knows them. */
  pendingBytes(): number;
  /** Called when a {@link CallFlow.pump} empties the queue: the transport may read (or let the guest send) more. */
  onWantsInput(): void;
  /**
   * Ends the connection once what was sent has gone out: called when the run already has as many
   * connections as it may, after the answer that says so. That happens in the constructor, so
   * `send` and `end` must work from the moment the flow is created.
   */
  end(): void;
  /** Default {@link DEFAULT_MAX_RUNNING_CALLS}. */
  maxRunning?: number;
  /** Default {@link DEFAULT_MAX_PENDING_ANSWER_BYTES}. */
  maxPendingBytes?: number;
}

/** Decodes one connection's bytes and runs its calls under a bounded window. */
export class CallFlow {
  readonly #options: CallFlowOptions;
  readonly #decoder: FrameDecoder;
  readonly #maxRunning: number;
  readonly #maxPendingBytes: number;
  readonly #queue: string[] = [];
  #running = 0;
  #closed = false;
  /** Counted in the run's connections; else refused and ended at once. */
  readonly #admitted: boolean;

  constructor(options: CallFlowOptions) {
    this.#options = options;
    const budget = options.rpc.connectionBudget;
    this.#admitted = budget.admit();
    this.#decoder = new FrameDecoder(options.maxFrameBytes, closedWhenRefusing(budget.unfinishedFrames, options.rpc));
    this.#maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING_CALLS;
    this.#maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_ANSWER_BYTES;
    if (!this.#admitted) {
      // At once, not at its first bytes: a connection that never speaks would hold a descriptor.
      this.close();
      options.send(options.rpc.rejectConnection());
      options.end();
    }
  }

  /** True while every decoded request has started: the transport may read more bytes. */
  get wantsInput(): boolean {
    return this.#queue.length === 0;
  }

  /** Calls running now. */
  get running(): number {
    return this.#running;
  }

  /** Feeds bytes from the guest; starts what the window allows and queues the rest. */
  push(chunk: Uint8Array): void {
    if (this.#closed) return;
    const { rpc, maxFrameBytes } = this.#options;
    for (const decoded of this.#decoder.push(chunk)) {
      // An oversized frame is answered at once: its answer is small and nothing runs.
      if (decoded.kind === "oversized") this.#options.send(rpc.rejectOversizedFrame(decoded.prefix, decoded.bytes, maxFrameBytes, decoded.over));
      else this.#queue.push(decoded.line);
    }
    this.#startWhatFits();
  }

  /**
   * Starts queued calls the window now allows; the transport calls it when pending answers were
   * delivered. Tells the transport when this empties the queue.
   */
  pump(): void {
    const hadQueue = this.#queue.length > 0;
    this.#startWhatFits();
    if (hadQueue && this.#queue.length === 0 && !this.#closed) this.#options.onWantsInput();
  }

  /** The connection is gone: queued calls are dropped and answers of running ones discarded. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    this.#decoder.release();
    if (this.#admitted) this.#options.rpc.connectionBudget.leave();
  }

  #startWhatFits(): void {
    while (!this.#closed && this.#queue.length > 0 && this.#running < this.#maxRunning && this.#options.pendingBytes() < this.#maxPendingBytes) {
      this.#start(this.#queue.shift()!);
    }
  }

  #start(line: string): void {
    const answer = this.#options.rpc.answer(line);
    // Answered at once (a refusal, a tool that answered synchronously): sent now, nothing runs.
    if (typeof answer === "string") {
      this.#options.send(answer);
      return;
    }
    this.#running += 1;
    void answer.then((text) => {
      this.#running -= 1;
      if (this.#closed) return;
      this.#options.send(text);
      this.pump();
    });
  }
}

/**
 * The run's budget of unfinished frames, closed once the run answers every request unread (its
 * refused requests have taken their budget, see `refusal-budget.ts`): a frame that arrives in
 * pieces is then skipped as it comes, never buffered nor decoded, and answered from its prefix.
 */
function closedWhenRefusing(budget: ByteBudget, rpc: RpcConnection): ByteBudget {
  return {
    take: (bytes) => !rpc.refusals.exhausted && budget.take(bytes),
    give: (bytes) => budget.give(bytes),
    get taken() {
      return budget.taken;
    },
    limit: budget.limit,
  };
}
