/**
 * A child's stdout or stderr pipe as a Web byte stream read into ONE reused buffer (see core's
 * `pipeHandle`: Node's own stdio socket allocates a fresh 64 KiB buffer for every read).
 *
 * The stream copies each read straight into the consumer's buffer when it reads with a BYOB
 * reader (no allocation per read), or into a fresh chunk for a default reader (whose chunks are
 * its own: the shared buffer is never handed out).
 *
 * Back-pressure: the pipe is read only while a read is pending (the stream's high-water mark is
 * 0); each read of the pipe stops reading it until the next pull, so a slow consumer leaves the
 * bytes in the pipe and the script blocks on a full pipe, as it would with a terminal.
 */
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { PipeHandle } from "@codecall/core/plugin-kit";

/** The most one read of the pipe takes: a Linux pipe's default capacity. */
const READ_BUFFER_BYTES = 64 * 1024;

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
