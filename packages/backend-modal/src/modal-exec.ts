/**
 * A `sandbox.exec` process as core's `ExecChannel`. Three things the SDK's own streams do not:
 *
 * - **stdin in pieces.** The SDK sends each write as one TaskExecStdinWrite message, and a gRPC
 *   server refuses messages over its limit (4 MiB by default): a 10 MB file written in one piece
 *   would fail. Writes go out in pieces of at most {@link STDIN_PIECE_BYTES}.
 * - **output chunk by chunk, stoppable.** Each read is a plain `reader.read()`; a listener on the
 *   `lost` signal (one per stream, removed when the stream ends) cancels the read. Racing every read
 *   against one long-lived "sandbox gone" promise instead would keep every chunk reachable from it
 *   (each race adds a reaction to that promise): ~105 MB held for 100 MB printed.
 * - **an exit that cannot hang.** The SDK's `wait()` retries an unreachable router forever (once a
 *   second, timers that keep Node alive); the signal-taking `_wait(signal)` is used so the wait ends
 *   when the sandbox is lost or the channel is closed.
 */
import { errorMessage, type ProcessExit } from "@codecall/core";
import type { ExecChannel } from "@codecall/core/backend-kit";
import type { ContainerProcess } from "modal";

/** The largest stdin write sent as one message (well under gRPC's default 4 MiB message limit). */
export const STDIN_PIECE_BYTES = 1024 * 1024;

/** `work`, or the reason of `stop` if it aborts first (a listener added for this call only). */
export function untilStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T> {
  if (stop.aborted) {
    work.catch(() => {});
    return Promise.reject(stop.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onStop = () => reject(stop.reason as Error);
    stop.addEventListener("abort", onStop, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener("abort", onStop));
  });
}

/**
 * Wraps `process`. `lost` aborts, with the error to report as its reason, when the sandbox can no
 * longer run it (ended, or the environment closed); `onTrouble` is told when an SDK call failed,
 * so the sandbox can be checked.
 */
export function toExecChannel(process: ContainerProcess<Uint8Array>, lost: AbortSignal, onTrouble: () => void): ExecChannel {
  const stop = new AbortController();
  const onLost = () => stop.abort(lost.reason);
  // The three parts (exit, stdout, stderr) each say when they are done; the last one unhooks `lost`.
  let open = 3;
  const partDone = () => {
    open -= 1;
    if (open === 0) lost.removeEventListener("abort", onLost);
  };
  lost.addEventListener("abort", onLost, { once: true });
  if (lost.aborted) onLost();

  const exit = process._wait(stop.signal).then(
    (code): ProcessExit => ({ exitCode: code }),
    (error: unknown) => {
      if (stop.signal.aborted) throw stop.signal.reason as Error;
      onTrouble();
      throw new Error(`waiting for the command failed: ${errorMessage(error)}`, { cause: error });
    },
  );
  exit.then(partDone, partDone);
  return {
    stdin: pieceWriter(process.stdin, stop.signal),
    stdout: stoppableReader(process.stdout, stop.signal, partDone, onTrouble),
    stderr: stoppableReader(process.stderr, stop.signal, partDone, onTrouble),
    exit,
    close: () => stop.abort(new Error("its channel was closed")),
  };
}

/** Reads `source` chunk by chunk; `stop` errors the stream and cancels the read in flight. */
function stoppableReader(source: ReadableStream<Uint8Array>, stop: AbortSignal, done: () => void, onTrouble: () => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let finished = false;
  let onStop = () => {};
  const finish = () => {
    if (finished) return false;
    finished = true;
    stop.removeEventListener("abort", onStop);
    done();
    return true;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onStop = () => {
          if (!finish()) return;
          controller.error(stop.reason);
          reader.cancel(stop.reason).catch(() => {});
        };
        if (stop.aborted) onStop();
        else stop.addEventListener("abort", onStop, { once: true });
      },
      async pull(controller) {
        try {
          const { done: ended, value } = await reader.read();
          if (finished) return;
          if (ended) {
            finish();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          if (!finish()) return;
          onTrouble();
          controller.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    // Nothing is read ahead: the caller's reads pull, so a slow reader holds the SDK back.
    { highWaterMark: 0 },
  );
}

/** Writes to `sink` in pieces of at most {@link STDIN_PIECE_BYTES}, each stopped by `stop`. */
function pieceWriter(sink: WritableStream<Uint8Array>, stop: AbortSignal): WritableStream<Uint8Array> {
  const writer = sink.getWriter();
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      for (let offset = 0; offset < chunk.length; offset += STDIN_PIECE_BYTES) {
        await untilStopped(writer.write(chunk.subarray(offset, offset + STDIN_PIECE_BYTES)), stop);
      }
    },
    close: () => untilStopped(writer.close(), stop),
    // Ends the input where that still works (the command sees EOF); nothing to do where it does not.
    abort: () => writer.close().catch(() => {}),
  });
}
