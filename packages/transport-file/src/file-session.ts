/**
 * Serves one run over files: a loop of polls, each ONE `executeOneshot` that writes the responses
 * ready since the last poll and claims every new request. Claimed requests are dispatched at once
 * and concurrently; a slow tool never holds up the next poll, and its response goes out with the
 * first poll after it finishes (which it wakes). The interval is short while calls flow and backs
 * off while the guest is idle.
 */
import type { Environment, RunContext, TransportSession } from "@codecall/core";
import { delay } from "@codecall/core/plugin-kit";
import { encodeFrame, newRunToken, rpcError, RpcErrorCode } from "@codecall/core/protocol";
import { answerRequest, TOKEN_LINE_BYTES } from "./answer-request.js";
import { maxPollOutputBytes, parsePollOutput, pollCommand, RPC_DIR_GONE_EXIT_CODE, type PolledRequest } from "./poll-script.js";

/** How a session paces its polls and how long it waits when closing. */
export interface FileSessionOptions {
  /** Interval while calls flow, in ms. */
  minPollMs: number;
  /** Interval the idle back-off grows to, in ms. */
  maxPollMs: number;
  /** How long a poll that answers every call in flight waits for the guest's next request, in ms. */
  lingerMs: number;
  /** How long `close()` waits for the poll in flight, and then for the last one. */
  closeTimeoutMs: number;
}

/** Growth of the interval after each poll that found nothing to do. */
const BACKOFF_FACTOR = 1.5;
/** Requests one poll claims; the rest wait in `requests/` for the next poll. */
const MAX_CLAIMS_PER_POLL = 256;
/**
 * Calls the host holds at once, from claim until their answers are written: their results live in
 * host memory until then, so a guest that floods `requests/` cannot grow it; the rest wait as
 * files in the environment.
 */
const MAX_CALLS_HELD = 32;
/** Backstop inside the environment for one poll (it moves at most about one frame budget). */
const POLL_TIMEOUT_MS = 120_000;

export class FileSession implements TransportSession {
  readonly guestEnv: Readonly<Record<string, string>>;
  readonly #environment: Environment;
  readonly #run: RunContext;
  readonly #rpcDir: string;
  readonly #options: FileSessionOptions;
  /** Response frames not yet written, by request id. */
  readonly #ready = new Map<string, string>();
  /** Ids whose requests the host holds; the next poll removes their claimed files. */
  readonly #acks = new Set<string>();
  /** Ids dispatched and not yet answered for sure: a listing of one of them is not a new request. */
  readonly #dispatched = new Set<string>();
  /** Aborts a poll still running when `close()` stops waiting for it. */
  readonly #abort = new AbortController();
  readonly #loop: Promise<void>;
  #intervalMs: number;
  /** Ends the sleep between two polls early. */
  #wake: AbortController | undefined;
  #wakePending = false;
  #serving = true;
  #stopped = false;
  #dirGone = false;
  #closing: Promise<void> | undefined;

  constructor(environment: Environment, run: RunContext, rpcDir: string, options: FileSessionOptions) {
    this.#environment = environment;
    this.#run = run;
    this.#rpcDir = rpcDir;
    this.#options = options;
    this.#intervalMs = options.minPollMs;
    this.guestEnv = { CODECALL_RPC_DIR: rpcDir, CODECALL_RPC_TOKEN: run.token };
    this.#loop = this.#serve();
  }

  /**
   * Stops polling: lets the poll in flight finish, then writes the responses that are ready and the
   * `closed` marker in one last poll, so every guest call still waiting fails at once instead of
   * hanging. Bounded even when the environment no longer answers. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#serving = false;
    this.#wakeUp();
    // The environment may be dead: every wait is bounded, and a poll still running is aborted.
    const idle = await settlesWithin(this.#loop, this.#options.closeTimeoutMs);
    if (idle && !this.#dirGone) await settlesWithin(this.#poll(true), this.#options.closeTimeoutMs);
    // From here on nothing of this session touches the environment again.
    this.#stopped = true;
    this.#abort.abort();
  }

  async #serve(): Promise<void> {
    while (this.#serving && !this.#dirGone) {
      await this.#sleep();
      if (this.#serving) await this.#poll(false);
    }
  }

  async #poll(closing: boolean): Promise<void> {
    const responses = new Map(this.#ready);
    const acks = [...this.#acks];
    this.#ready.clear();
    this.#acks.clear();
    const boundary = newRunToken();
    const maxFileBytes = this.#run.maxFrameBytes + TOKEN_LINE_BYTES;
    // The answers this poll writes leave the host's hands with it.
    const held = [...this.#dispatched].filter((id) => !responses.has(id)).length;
    const limits = { maxFileBytes, budgetBytes: maxFileBytes, maxClaims: Math.max(0, Math.min(MAX_CLAIMS_PER_POLL, MAX_CALLS_HELD - held)) };
    const { command, stdin } = pollCommand({
      rpcDir: this.#rpcDir,
      boundary,
      ...limits,
      // Linger only when this poll answers every call in flight: then the guest is likely to send
      // its next call at once. With calls still running, it would only delay their answers.
      lingerMs: this.#dispatched.size <= responses.size ? this.#options.lingerMs : 0,
      responses,
      acks,
      closing,
    });
    let requests: PolledRequest[] | undefined;
    try {
      const result = await this.#environment.executeOneshot(command, {
        stdin,
        timeoutMs: POLL_TIMEOUT_MS,
        signal: this.#abort.signal,
        maxOutputBytes: maxPollOutputBytes(limits),
      });
      if (result.exitCode === RPC_DIR_GONE_EXIT_CODE) this.#dirGone = true;
      // More output than a poll can print is not a poll's: treated as lost, never parsed.
      else if (result.exitCode === 0 && !result.truncated) requests = parsePollOutput(result.stdout, boundary);
    } catch {
      // A failed exec is a lost poll, handled below like any other.
    }
    if (this.#stopped) return;
    if (requests === undefined) {
      // How far the lost poll got is unknown: send it all again. Rewriting a response is harmless
      // (the guest reads each id once), and a request it did claim is listed again, as "old".
      for (const [id, frame] of responses) if (!this.#ready.has(id)) this.#ready.set(id, frame);
      for (const id of acks) this.#acks.add(id);
      this.#intervalMs = this.#options.maxPollMs;
      return;
    }
    // Answered for sure, and their claimed files are gone (acks go out no later than responses):
    // those ids can never be listed again, and a guest may use them anew.
    for (const id of responses.keys()) this.#dispatched.delete(id);
    for (const request of requests) this.#accept(request);
    const busy = requests.length > 0 || this.#ready.size > 0;
    this.#intervalMs = busy ? this.#options.minPollMs : Math.min(this.#options.maxPollMs, this.#intervalMs * BACKOFF_FACTOR);
  }

  /** Dispatches a request the host has not seen; a listing seen before is skipped. */
  #accept(request: PolledRequest): void {
    this.#acks.add(request.id);
    if (this.#dispatched.has(request.id)) {
      // An old listing is a request already being answered (the ack had not landed yet). A fresh
      // one is a second file under an id still in flight: it gets its own (error) answer.
      if (request.fresh) {
        this.#respond(request.id, encodeFrame(rpcError(request.id, RpcErrorCode.InvalidRequest, "Invalid request: this id is already in use")));
      }
      return;
    }
    this.#dispatched.add(request.id);
    void answerRequest(request, this.#run).then((frame) => this.#respond(request.id, frame));
  }

  #respond(id: string, frame: string): void {
    if (this.#stopped) return;
    this.#ready.set(id, frame);
    this.#intervalMs = this.#options.minPollMs;
    this.#wakeUp();
  }

  async #sleep(): Promise<void> {
    if (this.#wakePending) {
      this.#wakePending = false;
      return;
    }
    const wake = new AbortController();
    this.#wake = wake;
    // Aborted means woken: the sleep is over either way.
    await delay(this.#intervalMs, { signal: wake.signal }).catch(() => {});
    this.#wake = undefined;
  }

  /** Ends the current sleep, or skips the next one when a poll is running. */
  #wakeUp(): void {
    if (this.#wake) {
      this.#wake.abort();
      this.#wake = undefined;
    } else this.#wakePending = true;
  }
}

/** True when `promise` settles within `ms`; false when it is still pending then. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settle = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settle, settle);
  });
}
