/** `work`, or the reason of `stop` if it aborts first (a listener added for this call only). */
export function untilStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T> {
  if (stop.aborted) {
    work.catch(() => {});
    return Promise.reject(stop.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onStop = () => reject(stop.reason as Error);
    stop.addEventListener("abort", onStop, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener("abort", onStop));
  });
}
