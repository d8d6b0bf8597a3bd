/** Adapters from Node stream objects to the Web streams of the Environment contract. */
import { Readable, type Writable } from "node:stream";
import { pipeHandle } from "@codecall/core/plugin-kit";
import { pipeByteStream } from "./pipe-byte-stream.js";

/**
 * A child's stdout or stderr as a byte stream read into a reused buffer (see `pipe-byte-stream.ts`)
 * when it is a Node pipe, else (another runtime) through `Readable.toWeb`.
 */
export function toWebReadable(readable: Readable): ReadableStream<Uint8Array> {
  const handle = pipeHandle(readable);
  if (handle !== undefined) return pipeByteStream(readable, handle);
  return Readable.toWeb(readable) as unknown as ReadableStream<Uint8Array>;
}

/**
 * A child's stdin as a Web stream. Written by hand rather than with `Writable.toWeb`: that loads
 * Node's stream adapters on first use, 8–14 ms of a CLI run's start-up on a 2-vCPU machine. Each
 * write settles once Node has handed the chunk to the pipe (so a child that does not read holds
 * the writer back) and rejects with the pipe's error; close settles when the pipe is ended.
 */
export function toWebWritable(writable: Writable): WritableStream<Uint8Array> {
  // A child that exits without reading its stdin makes writes fail with EPIPE; that is not ours
  // to report, and unhandled it would crash the host.
  writable.on("error", () => {});
  const settle = (resolve: () => void, reject: (error: Error) => void) => (error?: Error | null) => (error ? reject(error) : resolve());
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise((resolve, reject) => writable.write(chunk, settle(resolve, reject))),
    // A destroyed pipe (its child exited: Node destroys its stdin) has nothing left to end, and
    // end() on it would never call back.
    close: () => new Promise((resolve, reject) => (writable.destroyed ? resolve() : writable.end(settle(resolve, reject)))),
    abort: (reason) => {
      writable.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
