/**
 * Reading a stream in chunks that are only lent, so that draining a flood allocates next to
 * nothing per read:
 * - a stream that offers {@link LENT_CHUNKS} (the local backend's pipes) is read through that
 *   reader, each chunk a view of the pipe's own reused read buffer, with no Web-stream machinery
 *   per read (a BYOB read allocates a request, a descriptor, a promise, a result and two array
 *   buffers: ~1.5 KiB per read, 15 MiB of short-lived garbage over a 200 MiB flood);
 * - any other byte stream with a BYOB reader into one buffer that every read reuses;
 * - any other stream (remote backends, other runtimes) with a default reader, whose chunks are
 *   the reader's own.
 */

/** The most one BYOB read asks for: a Linux pipe's capacity, what one read of a pipe returns at most. */
const READ_BUFFER_BYTES = 64 * 1024;

export interface ChunkReader {
  /** The next chunk, or `undefined` at the end; a chunk is valid only until the next call. */
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
}

/**
 * The key of an optional method of a `ReadableStream` (set by a backend on the streams it makes):
 * a reader of the stream's bytes whose chunks are lent, valid until the next `read()`. It reads
 * the same bytes the stream would give, and only while the stream is locked by the caller (who
 * cancels through the stream's own reader).
 */
export const LENT_CHUNKS: unique symbol = Symbol.for("codecall.lentChunks");

/** A stream that offers {@link LENT_CHUNKS}. */
export interface LentChunkStream extends ReadableStream<Uint8Array> {
  /** Only `read()`: cancelling goes through the stream's own reader. */
  [LENT_CHUNKS](): Pick<ChunkReader, "read">;
}

/** Locks `stream` and reads it: through its lent chunks, else into a reused buffer when it is a byte stream. */
export function chunkReader(stream: ReadableStream<Uint8Array>): ChunkReader {
  const lent = (stream as Partial<LentChunkStream>)[LENT_CHUNKS];
  if (typeof lent === "function") {
    // The stream's own (default) reader holds the lock and cancels; it is never read.
    const lock = stream.getReader();
    const { read } = lent.call(stream);
    return { read, cancel: () => lock.cancel() };
  }
  let byob: ReadableStreamBYOBReader;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: its chunks are fresh anyway.
    const reader = stream.getReader();
    return {
      read: async () => {
        const { done, value } = await reader.read();
        return done ? undefined : value;
      },
      cancel: () => reader.cancel(),
    };
  }
  let buffer = new Uint8Array(READ_BUFFER_BYTES);
  return {
    read: async () => {
      const { done, value } = await byob.read(buffer);
      if (done) return undefined;
      // A read transfers the buffer's memory to `value`; the next read takes it back.
      buffer = new Uint8Array(value.buffer);
      return value;
    },
    cancel: () => byob.cancel(),
  };
}
