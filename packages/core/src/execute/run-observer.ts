/**
 * The one place a run's events go out: to the tracing spans, to the async iterable's buffer, to
 * `onEvent`, and to the older single-purpose callbacks (`onStdout`, `onStderr`, `onToolCall`),
 * which are views of the same events. Nothing a consumer does can break the run (see
 * `callSafely`), and after `finished` nothing more is sent.
 */
import type { RunEvent, RunOutputEvent } from "../events.js";
import { toToolCallEvent } from "../rpc/dispatcher.js";
import { callHolding, callSafely, joinHolds } from "../safe-callback.js";
import type { RunTracing } from "../telemetry/run-tracing.js";
import type { EventChannel } from "./event-channel.js";
import type { ExecuteCodeOptions } from "./execute-options.js";

type Listeners = Pick<ExecuteCodeOptions, "onEvent" | "onStdout" | "onStderr" | "onToolCall">;

export class RunObserver {
  readonly #listeners: Listeners;
  readonly #channel: EventChannel | undefined;
  readonly #tracing: RunTracing | undefined;
  #finished = false;

  constructor(listeners: Listeners, channel?: EventChannel, tracing?: RunTracing) {
    this.#listeners = listeners;
    this.#channel = channel;
    this.#tracing = tracing;
  }

  /** Whether anyone takes the chunks of a stream (the live redaction is skipped otherwise). */
  wantsOutput(stream: "stdout" | "stderr"): boolean {
    const own = stream === "stdout" ? this.#listeners.onStdout : this.#listeners.onStderr;
    return own !== undefined || this.#listeners.onEvent !== undefined || this.#channel !== undefined;
  }

  /** Sends an event to everyone; `finished` closes the stream. */
  readonly emit = (event: RunEvent): void => {
    void this.#send(event);
  };

  /**
   * Sends a chunk of output to everyone. The promise, when a listener returned one, settles once
   * the listeners have taken the chunk: the script's output waits for it (see `drainStream`), as
   * it would for a slow terminal.
   */
  readonly emitOutput = (event: RunOutputEvent): Promise<void> | undefined => this.#send(event);

  #send(event: RunEvent): Promise<void> | undefined {
    if (this.#finished) return undefined;
    if (event.type === "finished") this.#finished = true;
    if (this.#tracing !== undefined) callSafely(this.#tracing.onEvent, event);
    this.#channel?.push(event);
    const taken = callHolding(this.#listeners.onEvent, event);
    let hold: Promise<void> | undefined;
    if (event.type === "stdout") hold = callHolding(this.#listeners.onStdout, event.chunk);
    else if (event.type === "stderr") hold = callHolding(this.#listeners.onStderr, event.chunk);
    else if (this.#listeners.onToolCall !== undefined) {
      const legacy = toToolCallEvent(event);
      if (legacy !== undefined) callSafely(this.#listeners.onToolCall, legacy);
    }
    if (this.#finished) this.#channel?.close();
    return event.type === "stdout" || event.type === "stderr" ? joinHolds(taken, hold) : undefined;
  }

  /** Ends the stream and the span without a `finished` event (a run that failed in a way that has no result); no-op after `finished`. */
  abandon(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#channel?.close();
    this.#tracing?.abandon();
  }
}
