/**
 * An ssh2 exec channel as core's `ExecChannel`: Web streams for stdin/stdout/stderr and an `exit`
 * promise. The channel counts as finished at `close` (all output read); a close without an exit
 * status means the command was lost (the connection dropped), which rejects `exit` instead of
 * inventing a code.
 */
import { constants } from "node:os";
import type { Readable } from "node:stream";
import type { ProcessExit } from "@codecall/core";
import type { ExecChannel } from "@codecall/core/backend-kit";
import type { ClientChannel } from "ssh2";

/** Bytes buffered per output stream before the channel is paused (and SSH flow control holds the remote writer). */
const OUTPUT_HIGH_WATER_MARK = 1 << 20;

/**
 * Wraps `channel`. `lostReason` is asked, when the channel closes without an exit status, why
 * (the connection's error, when it dropped).
 */
export function toExecChannel(channel: ClientChannel, lostReason: () => Error | undefined): ExecChannel {
  // Errors surface through `exit` and the streams; an unhandled 'error' event would crash the host.
  channel.on("error", () => {});
  channel.stderr.on("error", () => {});
  // ssh2 repeats the exit status in the `close` event's arguments. The `exit` event itself can fire
  // before this function runs (a fast command's status may arrive with the exec reply), so it is
  // not listened to.
  const exit = new Promise<ProcessExit>((resolve, reject) => {
    channel.once("close", (code?: number | null, signal?: string) => {
      if (typeof code === "number") resolve({ exitCode: code });
      else if (signal) resolve({ exitCode: 128 + (constants.signals[signal as NodeJS.Signals] ?? 127), signal });
      else reject(lostReason() ?? new Error("the SSH channel closed without an exit status"));
    });
  });
  return {
    stdin: channelStdin(channel),
    stdout: webReadable(channel),
    stderr: webReadable(channel.stderr),
    exit,
    close: () => channel.destroy(),
  };
}

/** A Web stream over a Node readable, with backpressure; a cancelled reader still lets the source drain, so the channel can close. */
function webReadable(source: Readable): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once("end", () => {
          if (!cancelled) controller.close();
        });
        source.once("error", (error) => {
          if (!cancelled) controller.error(error);
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        cancelled = true;
        source.resume();
      },
    },
    { highWaterMark: OUTPUT_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
}

/** Writes go to the channel; closing sends EOF. Writes still pending when the channel closes fail instead of hanging. */
function channelStdin(channel: ClientChannel): WritableStream<Uint8Array> {
  let closed = false;
  const pending = new Set<(error: Error) => void>();
  channel.once("close", () => {
    closed = true;
    for (const fail of pending) fail(new Error("the command ended before reading all of its stdin"));
    pending.clear();
  });
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error("the command has ended"));
        pending.add(reject);
        channel.write(chunk, (error) => {
          pending.delete(reject);
          if (error) reject(error);
          else resolve();
        });
      }),
    close: () => {
      if (!closed) channel.end();
    },
    abort: () => {
      if (!closed) channel.end();
    },
  });
}
