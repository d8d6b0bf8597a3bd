/**
 * A timer for any duration. `setTimeout` keeps its delay in a signed 32-bit integer in Node, Deno,
 * Bun and browsers: anything above 2^31-1 ms (about 24.8 days) fires after 1 ms instead, so a
 * 25-day script limit would kill the script at once. This chains timers of at most that length.
 */

/** The longest delay `setTimeout` honours (2^31-1 ms, about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** A pending {@link setLongTimeout}. */
export interface LongTimeout {
  /** Cancels the timer; idempotent, harmless after it fired. */
  clear(): void;
}

export interface LongTimeoutOptions {
  /** Do not keep the host process alive just for this timer (where the runtime has `unref`). */
  unref?: boolean;
}

/**
 * Calls `callback` once after `ms` milliseconds, however long that is (`Infinity`: never).
 * Throws a `RangeError` for a negative or NaN delay rather than firing at once.
 */
export function setLongTimeout(callback: () => void, ms: number, options: LongTimeoutOptions = {}): LongTimeout {
  if (typeof ms !== "number" || !(ms >= 0)) throw new RangeError(`A timer delay must be a non-negative number of milliseconds, got ${String(ms)}`);
  let handle: ReturnType<typeof setTimeout> | undefined;
  let cleared = false;
  const arm = (remaining: number) => {
    const step = Math.min(remaining, MAX_TIMER_DELAY_MS);
    handle = setTimeout(() => {
      if (cleared) return;
      if (remaining > step) arm(remaining - step);
      else callback();
    }, step);
    if (options.unref) (handle as { unref?: () => void }).unref?.();
  };
  arm(ms);
  return {
    clear() {
      cleared = true;
      clearTimeout(handle);
    },
  };
}
