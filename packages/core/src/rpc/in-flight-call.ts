/**
 * The cancellation of one running tool call. Its `AbortSignal` is made only when the tool reads
 * `context.signal` (an AbortController and the listener that races it cost more than the rest of
 * a no-op call), and a cancelled call settles at once, whether or not the tool ever looked at it.
 */
import type { Environment } from "../environment.js";
import type { ToolContext } from "../tool.js";

export class InFlightCall {
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: unknown;
  #rejectRace: ((reason: unknown) => void) | undefined;

  /** The context the tool runs with; its `signal` is created when first read. */
  context(environment: Environment, runId: string, callId: string): ToolContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getter below belongs to another object
    const call = this;
    return {
      environment,
      runId,
      callId,
      get signal() {
        return call.#signal();
      },
    };
  }

  /** True once {@link cancel} was called. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Why the call was cancelled (the abort reason). */
  get reason(): unknown {
    return this.#reason;
  }

  /** The call's signal (made now if the tool has not read it yet): aborted when the call is cancelled. */
  get signal(): AbortSignal {
    return this.#signal();
  }

  /** Aborts the tool's signal (if it has one) and rejects a pending {@link race} with `reason`. */
  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#rejectRace?.(reason);
  }

  /** Settles with `promise`, or rejects as soon as the call is cancelled (the tool may keep running). */
  race<T>(promise: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#cancelled) reject(this.#reason);
      this.#rejectRace = reject;
      promise.then(resolve, reject);
    });
  }

  #signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }
}

/** True for a promise or any other thenable (what `await` would wait for). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}
