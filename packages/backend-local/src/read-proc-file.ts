/**
 * A small file of `/proc` read at once into one reused buffer, for core's process-tree sweeps
 * (`ProcessHost.readFileSync`). A sweep reads one or two files of every process on the host;
 * Node's `readFileSync` allocates 64 KiB for each file whose size the kernel reports as 0 (all of
 * `/proc`), which costs three times the time of this, and async reads cost more still.
 */
import { closeSync, openSync, readSync } from "node:fs";

/** Grows (doubling) for a larger file, such as a long environment, and stays grown. */
let buffer = new Uint8Array(16 * 1024);

/** The whole of `path` as latin1 text; throws as `openSync` and `readSync` do. */
export function readProcFileSync(path: string): string {
  const descriptor = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = new Uint8Array(buffer.length * 2);
        larger.set(buffer);
        buffer = larger;
      }
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return Buffer.from(buffer.buffer, buffer.byteOffset, length).toString("latin1");
  } finally {
    closeSync(descriptor);
  }
}
