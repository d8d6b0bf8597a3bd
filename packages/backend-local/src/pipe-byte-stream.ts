/**
 * A child's stdout or stderr pipe as a Web byte stream read into ONE reused buffer (see core's
 * `pipeHandle`: Node's own stdio socket allocates a fresh 64 KiB buffer for every read).
 *
 * The stream copies each read straight into the consumer's buffer when it reads with a BYOB
 * reader (no allocation per read), or into a fresh chunk for a default reader (whose chunks are
 * its own: the shared buffer is never handed out).
 *
 * Core's readers take a shorter way still (`LENT_CHUNKS`): each read resolves with a view of the
 * reused buffer itself, lent until the next read, with none of the Web-stream machinery a read
 * costs (a flood is read in ~10 000 reads here).
 *
 * Back-pressure: the pipe is read only while a read is pending (the stream's high-water mark is
 * 0); each read of the pipe stops reading it until the next pull, so a slow consumer leaves the
 * bytes in the pipe and the script blocks on a full pipe, as it would with a terminal.
 */
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import { LENT_CHUNKS, type LentChunkStream, type PipeHandle } from "@codecall/core/plugin-kit";

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
  /** The stream's failure, once it has failed (a lent read after it rejects with it). */
  let failure: { error: unknown } | undefined;
  /** A lent read waiting for the pipe (see `LENT_CHUNKS`). */
  let lentRead: { resolve: (chunk: Uint8Array | undefined) => void; reject: (error: unknown) => void } | undefined;
  const settleLentRead = () => {
    const read = lentRead;
    lentRead = undefined;
    if (failure) read?.reject(failure.error);
    else read?.resolve(undefined);
  };
  const deliver = (length: number): boolean => {
    const bytes = buffer.subarray(0, length);
    if (lentRead) {
      const { resolve } = lentRead;
      lentRead = undefined;
      resolve(bytes);
      return false;
    }
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
    settleLentRead();
  };
  socket.on("end", () =>
    finish(() => {
      controller.close();
      // A BYOB read still pending must be answered after the close (with no bytes: done).
      controller.byobRequest?.respond(0);
    }),
  );
  socket.on("error", (error) =>
    finish(() => {
      failure = { error };
      controller.error(error);
    }),
  );
  const stream = new ReadableStream(
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
        settleLentRead();
      },
    },
    { highWaterMark: 0 },
  );
  const lentChunks = () => ({
    read: (): Promise<Uint8Array | undefined> => {
      if (failure) return Promise.reject(failure.error);
      if (ended) return Promise.resolve(undefined);
      if (lentRead) return Promise.reject(new Error("A lent read of this pipe is already pending"));
      return new Promise((resolve, reject) => {
        lentRead = { resolve, reject };
        socket.resume();
      });
    },
  });
  return Object.assign(stream, { [LENT_CHUNKS]: lentChunks }) satisfies LentChunkStream;
}
