/**
 * A command's stdin over the SDK's stdin stream, where every write is one TaskExecStdinWrite call
 * (a round trip to the command router, one at a time). Two things it adds:
 *
 * - **pieces.** A gRPC server refuses messages over its limit (4 MiB by default): a 10 MB file
 *   written in one piece would fail. Bytes go out in pieces of at most {@link STDIN_PIECE_BYTES}.
 * - **gathering**, for a long-lived command fed many small writes (the environment agent: a frame
 *   per request, answer and stdin chunk of every command it runs; a spawned relay). While one call
 *   is in flight, what is written meanwhile waits and goes out together in the next one — else
 *   ten concurrent commands would cost ten calls in a row. Such a write resolves once its bytes
 *   are queued, while less than a piece waits (past that it waits for the queue to be sent, so a
 *   fast writer is held back); a call that fails leaves a hole in the input, so the command is
 *   given up (`onBroken`) and later writes fail. Without gathering each write resolves when its
 *   bytes are sent and fails itself — what a command written whole and closed at once needs, to
 *   report a refused header as such.
 */
import { untilStopped } from "./until-stopped.js";

/** The largest stdin write sent as one message (well under gRPC's default 4 MiB message limit). */
export const STDIN_PIECE_BYTES = 1024 * 1024;

export interface StdinWriterOptions {
  /** Gather small writes made while a call is in flight (see above). */
  gather: boolean;
  /** Stops the call in flight (its reason is the error). */
  stop: AbortSignal;
  /** Told when a gathered write could not be sent (its writer had already been told it was taken). */
  onBroken: (error: Error) => void;
}

/** Writes to `sink` as described above. */
export function stdinWriter(sink: WritableStream<Uint8Array>, { gather, stop, onBroken }: StdinWriterOptions): WritableStream<Uint8Array> {
  const writer = sink.getWriter();
  let queued: Uint8Array[] = [];
  let queuedBytes = 0;
  let sending: Promise<void> | undefined;
  let failure: Error | undefined;

  const sendQueued = async () => {
    try {
      while (queued.length > 0) {
        const bytes = queued.length === 1 ? queued[0]! : Buffer.concat(queued);
        queued = [];
        queuedBytes = 0;
        for (let offset = 0; offset < bytes.length; offset += STDIN_PIECE_BYTES) {
          await untilStopped(writer.write(bytes.subarray(offset, offset + STDIN_PIECE_BYTES)), stop);
        }
      }
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      queued = [];
      queuedBytes = 0;
      if (gather) onBroken(failure);
    } finally {
      sending = undefined;
    }
  };
  /** Settles once everything queued so far is sent (or failed); never rejects. */
  const flush = () => (sending ??= sendQueued());
  const check = () => {
    if (failure !== undefined) throw failure;
  };

  return new WritableStream<Uint8Array>({
    async write(chunk) {
      check();
      queued.push(chunk);
      queuedBytes += chunk.length;
      const sent = flush();
      if (!gather || queuedBytes >= STDIN_PIECE_BYTES || chunk.length >= STDIN_PIECE_BYTES) {
        await sent;
        check();
      }
    },
    async close() {
      await sending;
      check();
      await untilStopped(writer.close(), stop);
    },
    // Ends the input where that still works (the command sees EOF); nothing to do where it does not.
    abort: () => writer.close().catch(() => {}),
  });
}
