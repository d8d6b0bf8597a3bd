/** Buffers that grow as bytes arrive, so a large bound costs nothing until it is used. */

/** First size of a growable buffer: most streams are small, whatever their bound. */
const INITIAL_BUFFER_BYTES = 4096;

/**
 * `buffer` (its first `used` bytes) in an array of at least `needed` bytes: itself when it is big
 * enough, else a copy at double its size (at least `needed`), never above `max`.
 */
export function grown(buffer: Uint8Array, used: number, needed: number, max: number): Uint8Array {
  if (needed <= buffer.length) return buffer;
  const next = new Uint8Array(Math.min(max, Math.max(needed, buffer.length * 2, INITIAL_BUFFER_BYTES)));
  next.set(buffer.subarray(0, used));
  return next;
}
