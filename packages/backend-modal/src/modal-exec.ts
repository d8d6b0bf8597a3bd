/**
 * A `sandbox.exec` process as core's `ExecChannel`. Three things the SDK's own streams do not:
 *
 * - **stdin in pieces, gathered** (see `stdin-writer.ts`): no message over gRPC's limit, and small
 *   writes made while one is in flight go out together.
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
import { stdinWriter } from "./stdin-writer.js";
import { untilStopped } from "./until-stopped.js";

/**
 * Wraps `process`. `lost` aborts, with the error to report as its reason, when the sandbox can no
 * longer run it (ended, or the environment closed); `onTrouble` is told when an SDK call failed,
 * so the sandbox can be checked. `streaming`: a command fed while it runs (its small writes are
 * gathered), not one written whole and closed at once.
 */
export function toExecChannel(process: ContainerProcess<Uint8Array>, lost: AbortSignal, onTrouble: () => void, streaming: boolean): ExecChannel {
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

  // Settled by `stop` at once, whatever the SDK's wait is doing then (retrying a router that is gone).
  const exit = untilStopped(process._wait(stop.signal), stop.signal).then(
    (code): ProcessExit => ({ exitCode: code }),
    (error: unknown) => {
      if (stop.signal.aborted) throw stop.signal.reason as Error;
      onTrouble();
      throw new Error(`waiting for the command failed: ${errorMessage(error)}`, { cause: error });
    },
  );
  exit.then(partDone, partDone);
  return {
    stdin: stdinWriter(process.stdin, {
      gather: streaming,
      stop: stop.signal,
      onBroken: (error) => {
        onTrouble();
        stop.abort(new Error(`its input could not be sent: ${errorMessage(error)}`, { cause: error }));
      },
    }),
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
