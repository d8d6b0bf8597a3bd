/** Adapters from Node stream objects to the Web streams of the Environment contract. */
import { Readable, Writable } from "node:stream";
import { pipeByteStream, pipeHandle } from "./pipe-byte-stream.js";

/**
 * A child's stdout or stderr as a byte stream read into a reused buffer (see `pipe-byte-stream.ts`)
 * when it is a Node pipe, else (another runtime) through `Readable.toWeb`.
 */
export function toWebReadable(readable: Readable): ReadableStream<Uint8Array> {
  const handle = pipeHandle(readable);
  if (handle !== undefined) return pipeByteStream(readable, handle);
  return Readable.toWeb(readable) as unknown as ReadableStream<Uint8Array>;
}

export function toWebWritable(writable: Writable): WritableStream<Uint8Array> {
  // A child that exits without reading its stdin makes writes fail with EPIPE; that is not ours
  // to report, and unhandled it would crash the host.
  writable.on("error", () => {});
  return Writable.toWeb(writable) as WritableStream<Uint8Array>;
}
