/**
 * Calls an embedder's callback (progress, live output) so that nothing it does can break the run
 * it reports on: a throw is swallowed, and so is the rejection of an async callback (which would
 * otherwise be an unhandled rejection, fatal to a Node process).
 */
export function callSafely<T>(callback: ((value: T) => unknown) | undefined, value: T): void {
  if (callback === undefined) return;
  try {
    const returned = callback(value);
    if (returned instanceof Promise) returned.catch(() => {});
  } catch {
    // Reporting is best effort; the run goes on.
  }
}
