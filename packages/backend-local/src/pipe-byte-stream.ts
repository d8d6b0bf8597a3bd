/**
 * A child's stdout or stderr pipe as a Web byte stream read into ONE reused buffer.
 *
 * Why: a Node child's stdio socket allocates a fresh 64 KiB buffer for every read of its pipe, and
 * the GC frees them late, so a script printing hundreds of MiB grows the host's memory by tens of
 * MiB although every chunk is dropped at once. A socket made with Node's documented `onread`
 * option reads into one buffer of ours instead; the stream copies each read straight into the
 * consumer's buffer when it reads with a BYOB reader (no allocation per read), or into a fresh
 * chunk for a default reader (whose chunks are its own: the shared buffer is never handed out).
 *
 * Back-pressure: the pipe is read only while a read is pending (the stream's high-water mark is
 * 0); each read of the pipe stops reading it until the next pull, so a slow consumer leaves the
 * bytes in the pipe and the script blocks on a full pipe, as it would with a terminal.
 */
import { Socket } from "node:net";
import type { Readable } from "node:stream";

/** The most one read of the pipe takes: a Linux pipe's default capacity. */
const READ_BUFFER_BYTES = 64 * 1024;

/** The parts of Node's libuv pipe handle (`pipe_wrap`'s `Pipe`) that {@link pipeHandle} checks for. */
interface PipeHandle {
  readStart(): number;
  readStop(): number;
  useUserBuffer(buffer: Uint8Array): void;
}

/**
 * The libuv pipe handle behind a Node child's stdio stream, or `undefined` when there is none that
 * `onread` can adopt (Deno's and Bun's child streams, a future Node that changes its internals).
 *
 * `_handle` is private to Node. It is used because Node offers no public way to give a child's
 * stdio its read buffer, and adopting the handle in a `net.Socket` is what Node itself does to
 * make that stdio socket; every property used is checked first, so a runtime without it falls
 * back to `Readable.toWeb`.
 */
export function pipeHandle(readable: Readable): PipeHandle | undefined {
  // Deno and Bun imitate Node's handles to differing degrees; adopting one is only known to work on Node.
  if (process.versions.deno !== undefined || process.versions.bun !== undefined) return undefined;
  const handle = (readable as { _handle?: unknown })._handle;
  if (typeof handle !== "object" || handle === null || handle.constructor.name !== "Pipe") return undefined;
  const { readStart, readStop, useUserBuffer } = handle as Partial<PipeHandle>;
  const usable = typeof readStart === "function" && typeof readStop === "function" && typeof useUserBuffer === "function";
  return usable ? (handle as PipeHandle) : undefined;
}

/**
 * Reads `handle` (taken from `readable`, a child's stdout or stderr that nothing has read yet)
 * into a reused buffer, as a byte stream. Cancelling the stream closes the pipe.
 */
export function pipeByteStream(readable: Readable, handle: PipeHandle): ReadableStream<Uint8Array> {
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  let controller: ReadableByteStreamController;
  let ended = false;
  const deliver = (length: number): boolean => {
    const bytes = buffer.subarray(0, length);
    const request = controller.byobRequest;
    if (request?.view) {
      const view = request.view;
      const target = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      const fits = Math.min(length, target.length);
      target.set(bytes.subarray(0, fits));
      request.respond(fits);
      // A consumer's buffer smaller than the read: the rest waits in the stream's queue, copied.
      if (fits < length) controller.enqueue(bytes.slice(fits));
    } else {
      controller.enqueue(bytes.slice());
    }
    // Stop reading the pipe until the consumer asks again (`pull`).
    return false;
  };
  const socket = new Socket({ handle, readable: true, writable: false, onread: { buffer, callback: deliver } } as ConstructorParameters<
    typeof Socket
  >[0]);
  // The child's own socket gave its handle away and must never read it again: the child process
  // resumes its stdio streams when it exits (`flushStdio`), which would restart a paused read.
  (readable as { readable: boolean }).readable = false;
  // Nothing is read until the first pull.
  socket.pause();
  const finish = (action: () => void) => {
    if (ended) return;
    ended = true;
    action();
  };
  socket.on("end", () =>
    finish(() => {
      controller.close();
      // A BYOB read still pending must be answered after the close (with no bytes: done).
      controller.byobRequest?.respond(0);
    }),
  );
  socket.on("error", (error) => finish(() => controller.error(error)));
  return new ReadableStream(
    {
      type: "bytes",
      start: (start) => {
        controller = start;
      },
      pull: () => {
        socket.resume();
      },
      cancel: () => {
        ended = true;
        socket.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
