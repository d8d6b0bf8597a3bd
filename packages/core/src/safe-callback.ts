/**
 * Calls an embedder's callback (progress, live output) so that nothing it does can break the run
 * it reports on: a throw is swallowed, and so is the rejection of an async callback (which would
 * otherwise be an unhandled rejection, fatal to a Node process).
 */
export function callSafely<T>(callback: ((value: T) => unknown) | undefined, value: T): void {
  void callHolding(callback, value);
}

/**
 * {@link callSafely}, handing back what an async callback returned as a hold: a promise that
 * settles with it and never rejects. For the callers that let a consumer hold the run back (live
 * output waits for a slow reader: see `drainStream`).
 */
export function callHolding<T>(callback: ((value: T) => unknown) | undefined, value: T): Promise<void> | undefined {
  if (callback === undefined) return undefined;
  try {
    return holdOf(callback(value));
  } catch {
    // Reporting is best effort; the run goes on.
    return undefined;
  }
}

/** What a consumer returned, as a hold: a promise (never rejecting) when it is one, else `undefined`. */
export function holdOf(returned: unknown): Promise<void> | undefined {
  return isThenable(returned) ? Promise.resolve(returned).then(settled, settled) : undefined;
}

/**
 * Calls every listener with `value` (see {@link callHolding}); the promise, when one of them
 * returned one, settles once all of theirs have.
 */
export function callEachHolding<T>(listeners: readonly (((value: T) => unknown) | undefined)[], value: T): Promise<void> | undefined {
  let holds: Promise<void>[] | undefined;
  for (const listener of listeners) {
    const hold = callHolding(listener, value);
    if (hold !== undefined) (holds ??= []).push(hold);
  }
  return holds === undefined ? undefined : joinHolds(...holds);
}

/** One promise that settles once every given one has (`undefined` when none is given). */
export function joinHolds(...holds: (Promise<void> | undefined)[]): Promise<void> | undefined {
  const pending = holds.filter((hold) => hold !== undefined);
  if (pending.length <= 1) return pending[0];
  return Promise.all(pending).then(settled);
}

function settled(): void {}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}
