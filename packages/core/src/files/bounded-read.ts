/**
 * Reading a file within a byte bound (`readFile`'s `maxBytes`), for backends: the bound is applied
 * by the read itself, never by a size check made before it, so a file that grows or is swapped
 * for a bigger one (a symlink flipped by a script) between the check and the read still costs the
 * host at most `maxBytes + 1` bytes.
 */
import { CodecallError } from "../errors.js";

/** Reads up to `into.length` bytes at `position` into `into`; resolves with the count, 0 at the end. */
export type ReadAt = (into: Uint8Array, position: number) => Promise<number>;

/** Options of {@link readBounded}. */
export interface BoundedReadOptions {
  /** The file's path, for the error. */
  path: string;
  /** `readFile`'s `maxBytes`; unlimited when undefined. */
  maxBytes?: number | undefined;
  /**
   * The size the file claims (fstat on the open file): one over `maxBytes` is refused at once;
   * otherwise it only sizes the buffer, and the read still stops at the bound.
   */
  sizeHint?: number | undefined;
}

/** Bytes asked of the source in one step while the size is unknown. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a file from its start to its end through `read`, stopping after `maxBytes + 1` bytes with
 * `FILE_TOO_LARGE`. The buffer grows by doubling and never past `maxBytes + 1` bytes.
 */
export async function readBounded(read: ReadAt, options: BoundedReadOptions): Promise<Uint8Array> {
  const { path, maxBytes, sizeHint } = options;
  checkMaxBytes(maxBytes);
  // A file that says it is over the limit is refused before a byte is read.
  if (maxBytes !== undefined && sizeHint !== undefined && sizeHint > maxBytes) throw fileTooLarge(path, maxBytes, sizeHint);
  const ceiling = maxBytes === undefined ? Number.POSITIVE_INFINITY : maxBytes + 1;
  // One byte past the claimed size, so the end is seen without growing.
  const wanted = sizeHint !== undefined && Number.isSafeInteger(sizeHint) && sizeHint >= 0 ? sizeHint + 1 : CHUNK_BYTES;
  let buffer = new Uint8Array(Math.min(wanted, ceiling));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length >= ceiling) throw fileTooLarge(path, maxBytes!);
      const grown = new Uint8Array(Math.min(Math.max(length * 2, CHUNK_BYTES), ceiling));
      grown.set(buffer);
      buffer = grown;
    }
    const count = await read(buffer.subarray(length), length);
    if (count === 0) break;
    length += count;
  }
  return length === buffer.length ? buffer : buffer.slice(0, length);
}

/** Throws a `RangeError` unless `maxBytes` is undefined or a non-negative safe integer. */
export function checkMaxBytes(maxBytes: number | undefined): void {
  if (maxBytes === undefined) return;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a non-negative integer, got ${String(maxBytes)}`);
}

/** The `FILE_TOO_LARGE` error of a read that passed `limit`; `size` when the backend knows it. */
export function fileTooLarge(path: string, limit: number, size?: number): CodecallError {
  const what = size === undefined ? "more than" : `${size} bytes, over`;
  return new CodecallError("FILE_TOO_LARGE", `File too large: ${path} holds ${what} the ${limit}-byte limit of this read`, {
    details: { path, limit, ...(size === undefined ? {} : { size }) },
  });
}
