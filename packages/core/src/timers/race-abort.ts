/**
 * Waiting on work that cannot be cancelled (a tool, an embedder's callback) for no longer than a
 * signal allows: the wait ends when the signal aborts, even if the work never settles.
 */

/** Settles with the promise, or rejects with `signal.reason` as soon as it aborts (the work may go on). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      promise.catch(() => {});
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
