/**
 * A pass-through of a stream that its owner can end while a reader holds it. A remote command's
 * output streams end when its backend says so; a backend that never does (a frozen server, an
 * exec API that lost the command) would hold whoever drains them for ever. `release()` cancels
 * the source — what it has not delivered is dropped — and the reader then sees the end.
 */
export interface ReleasableStream {
  readonly stream: ReadableStream<Uint8Array>;
  /** Ends the stream for its reader and cancels the source. Idempotent. */
  release(): void;
}

export function releasableStream(source: ReadableStream<Uint8Array>): ReleasableStream {
  const reader = source.getReader();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A cancel (the release) settles a pending read as done at once, whatever the source does.
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Nothing read ahead: the source's own queue and backpressure stay what they were.
    { highWaterMark: 0 },
  );
  return { stream, release: () => void reader.cancel().catch(() => {}) };
}
