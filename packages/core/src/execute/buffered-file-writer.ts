/**
 * A file writer for an environment without `openFileWriter`: the bytes are held in host memory and
 * written in one piece with `writeFile` on close.
 */
import type { Environment, WriteFileOptions } from "../environment.js";
import { grown } from "./growable-buffer.js";

/**
 * The most the first write allocates. `expectedBytes` is a limit, not a size: a spill limit of
 * gigabytes (or `Number.MAX_SAFE_INTEGER`, "all of it") must not be allocated for a file of a few
 * kilobytes, nor fail for being larger than an array can be. The default spill limit fits.
 */
const FIRST_ALLOCATION_MAX_BYTES = 8 * 1024 * 1024;

/**
 * A writer of `path` that holds what it is given in one buffer of `expectedBytes` (at most
 * {@link FIRST_ALLOCATION_MAX_BYTES}), allocated at the first write, so the usual file costs one
 * allocation, not a copy per doubling; more still fits, the buffer doubling as it fills.
 */
export function bufferedFileWriter(
  environment: Environment,
  path: string,
  options: WriteFileOptions,
  expectedBytes: number,
): WritableStream<Uint8Array> {
  let buffer: Uint8Array = new Uint8Array(0);
  let length = 0;
  return new WritableStream<Uint8Array>({
    write(chunk) {
      if (buffer.length === 0) buffer = new Uint8Array(Math.max(Math.min(expectedBytes, FIRST_ALLOCATION_MAX_BYTES), chunk.length));
      buffer = grown(buffer, length, length + chunk.length, Number.MAX_SAFE_INTEGER);
      buffer.set(chunk, length);
      length += chunk.length;
    },
    async close() {
      const bytes = buffer.subarray(0, length);
      buffer = new Uint8Array(0);
      await environment.writeFile(path, bytes, options);
    },
    abort() {
      buffer = new Uint8Array(0);
    },
  });
}
