/**
 * A file writer for an environment without `openFileWriter`: the bytes are held in host memory and
 * written in one piece with `writeFile` on close.
 */
import type { Environment, WriteFileOptions } from "../environment.js";
import { grown } from "./growable-buffer.js";

/**
 * A writer of `path` that holds what it is given in one buffer of `expectedBytes`, allocated at the
 * first write (so the usual file costs one allocation, not a copy per doubling; more still fits).
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
      if (buffer.length === 0) buffer = new Uint8Array(Math.max(expectedBytes, chunk.length));
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
