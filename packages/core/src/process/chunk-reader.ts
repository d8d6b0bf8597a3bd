/**
 * Reading a stream in chunks that are only lent: a byte stream (the local backend's pipes) is read
 * with a BYOB reader into one buffer that every read reuses, so draining a flood allocates nothing
 * per read; any other stream (remote backends, other runtimes) with a default reader, whose chunks
 * are the reader's own.
 */

/** The most one BYOB read asks for: a Linux pipe's capacity, what one read of a pipe returns at most. */
const READ_BUFFER_BYTES = 64 * 1024;

export interface ChunkReader {
  /** The next chunk, or `undefined` at the end; a chunk is valid only until the next call. */
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
  releaseLock(): void;
}

/** Locks `stream` and reads it: into a reused buffer when it is a byte stream. */
export function chunkReader(stream: ReadableStream<Uint8Array>): ChunkReader {
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
      releaseLock: () => reader.releaseLock(),
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
    releaseLock: () => byob.releaseLock(),
  };
}
