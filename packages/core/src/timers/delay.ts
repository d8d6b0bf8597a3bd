/**
 * The one way codecall waits: a promise that resolves after a delay, or rejects the moment its
 * signal aborts (and then leaves no timer behind). Poll loops, retry pauses and grace periods all
 * use it instead of ad-hoc `setTimeout` promises.
 */
import { setLongTimeout } from "./long-timeout.js";

export interface DelayOptions {
  /** Rejects the delay with the signal's reason as soon as it aborts (at once when already aborted). */
  signal?: AbortSignal;
  /** Do not keep the host process alive just for this delay (where the runtime has `unref`). */
  unref?: boolean;
}

/**
 * Resolves after `ms` milliseconds (any length: see `setLongTimeout`). Rejects with
 * `signal.reason` when `signal` aborts first, and with a `RangeError` for a negative or NaN delay.
 */
export function delay(ms: number, options: DelayOptions = {}): Promise<void> {
  const { signal } = options;
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      timer.clear();
      reject(signal?.reason);
    };
    const timer = setLongTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      ms,
      { unref: options.unref === true },
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
