/**
 * Helpers for backends and for `executeCode`: drain a process's streams into bounded captures
 * while it runs, and collect an `execute()` result from a spawned process.
 */
import type { EnvironmentProcess, ExecResult, ProcessExit } from "../environment.js";
import { CodecallError, errorMessage } from "../errors.js";
import { callHolding } from "../safe-callback.js";
import { createCapture, type ByteCapture, type CapturedOutput } from "../execute/output-capture.js";
import { delay } from "../timers/delay.js";
import { chunkReader } from "./chunk-reader.js";

/**
 * How long a process whose input could not be written has to exit by itself. A process that
 * stopped reading and exited (the usual reason a write fails: EPIPE) did not need the rest; one
 * still running after this may be waiting for input that will never come (an exec API that lost
 * or refused a write), so it is ended rather than left to its timeout.
 */
export const UNDELIVERED_STDIN_GRACE_MS = 2_000;

/**
 * Reads a stream to its end into `capture`, calling `onChunk` for live output. Never rejects.
 * Aborting `stop` cancels the read, releasing the stream (a pipe a leftover process still holds).
 *
 * A byte stream is read into one reused buffer (see `chunk-reader.ts`), so `capture.push` and
 * `onChunk` are lent each chunk for the call only: what they keep, they copy (`redactingSink`
 * does, for live output). While `capture.ready()` or `onChunk` hands out a wait, reading waits for
 * it: the bytes stay in the pipe, and a writer that fills it waits too (back-pressure, so memory
 * stays bounded whatever the consumer's pace). Aborting `letGo` (the writer is gone, so what is
 * left to read is bounded: a pipe's worth) or `stop` ends the waits for `onChunk`: the rest is
 * read at once, and a consumer slower than the grace a caller gives the reading loses nothing.
 */
export async function drainStream(
  stream: ReadableStream<Uint8Array>,
  capture: ByteCapture,
  onChunk?: (chunk: Uint8Array) => unknown,
  stop?: AbortSignal,
  letGo?: AbortSignal,
): Promise<void> {
  const reader = chunkReader(stream);
  const cancel = () => void reader.cancel().catch(() => {});
  stop?.addEventListener("abort", cancel, { once: true });
  try {
    for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) {
      capture.push(chunk);
      const taken = callHolding(onChunk, chunk);
      const room = capture.ready?.();
      if (taken !== undefined) await untilAborted(taken, [letGo, stop]);
      if (room !== undefined) await room;
    }
  } catch {
    // A stream torn down by a kill or a lost connection just ends the capture; one left open by
    // a failing capture is cancelled, so that its writer is not left blocked on a full pipe.
    cancel();
  } finally {
    stop?.removeEventListener("abort", cancel);
  }
  // The lock is kept: the stream has ended, and releasing it costs Node 20 a new V8 context the
  // first time (its "released" error is built without side effects in one): ~5 ms of a run.
}

/** `hold`, or less when one of `signals` is aborted first (a consumer that never takes its chunk cannot keep the reader). */
export async function untilAborted(hold: Promise<void>, signals: readonly (AbortSignal | undefined)[]): Promise<void> {
  const present = signals.filter((signal) => signal !== undefined);
  if (present.length === 0) return hold;
  if (present.some((signal) => signal.aborted)) return undefined;
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    for (const signal of present) signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([hold, aborted]);
  } finally {
    for (const signal of present) signal.removeEventListener("abort", onAbort);
  }
}

/** Writes `data` (or nothing) to a process's stdin and closes it. Never rejects: a process may exit without reading its input. */
export async function writeStdin(stdin: WritableStream<Uint8Array>, data?: string | Uint8Array): Promise<void> {
  await deliverStdin(stdin, data);
}

/** Writes `data` (or nothing) to stdin and closes it; resolves with the failure, if the write or the close failed. */
async function deliverStdin(stdin: WritableStream<Uint8Array>, data?: string | Uint8Array): Promise<{ error: unknown } | undefined> {
  const writer = stdin.getWriter();
  try {
    if (data !== undefined && data.length > 0) {
      await writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
    }
    await writer.close();
    return undefined;
  } catch (error) {
    return { error };
  }
  // The lock is kept on the closed (or failed) stream: releasing it costs Node 20 a new V8 context
  // the first time, to build its "released" error (see drainStream).
}

export interface CollectOptions {
  stdin?: string | Uint8Array;
  /** Per stream (head and tail kept); default unlimited. */
  maxOutputBytes?: number;
  /**
   * What a failed stdin write means. `"end"` (the default, right for exec APIs, where a refused
   * or lost write cannot be told from a closed pipe): the process is given
   * {@link UNDELIVERED_STDIN_GRACE_MS} to exit, then killed with an error. `"ignore"`: the write
   * can only have failed because the process closed its stdin (a local pipe's EPIPE) — its choice,
   * so it runs on.
   */
  undeliveredStdin?: "end" | "ignore";
}

export interface CollectedProcess {
  exit: ProcessExit;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
}

/**
 * Feeds stdin, drains both streams and waits for the exit. When the input cannot be written and
 * the process does not exit by itself within {@link UNDELIVERED_STDIN_GRACE_MS}, the process is
 * killed (unless `undeliveredStdin` is `"ignore"`) and this rejects (`ENVIRONMENT_FAILED`, naming the write's error): a command never runs
 * on with part of its input, nor waits for the rest until its timeout.
 */
export async function collectProcess(process: EnvironmentProcess, options: CollectOptions = {}): Promise<CollectedProcess> {
  const stdout = createCapture(options.maxOutputBytes);
  const stderr = createCapture(options.maxOutputBytes);
  const exit = process.wait();
  const [ended, undelivered] = await Promise.all([
    exit.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    deliverStdin(process.stdin, options.stdin).then((failure) =>
      failure && options.undeliveredStdin !== "ignore" ? endUndelivered(process, exit, failure.error) : undefined,
    ),
    drainStream(process.stdout, stdout),
    drainStream(process.stderr, stderr),
  ]);
  if (undelivered) throw undelivered;
  if ("error" in ended) throw ended.error;
  return { exit: ended.value, stdout: stdout.finish(), stderr: stderr.finish() };
}

/**
 * After a failed stdin write: a process that exits within the grace did not need the rest
 * (undefined); one that does not is killed, and the error to report is returned.
 */
async function endUndelivered(process: EnvironmentProcess, exit: Promise<ProcessExit>, cause: unknown): Promise<CodecallError | undefined> {
  const graceOver = new AbortController();
  const exitedByItself = await Promise.race([
    exit.then(
      () => true,
      () => true,
    ),
    delay(UNDELIVERED_STDIN_GRACE_MS, { signal: graceOver.signal }).then(
      () => false,
      () => true,
    ),
  ]);
  graceOver.abort();
  if (exitedByItself) return undefined;
  await process.kill().catch(() => {});
  return new CodecallError(
    "ENVIRONMENT_FAILED",
    `Could not write the command's input (${errorMessage(cause)}); the command was still waiting after ${UNDELIVERED_STDIN_GRACE_MS / 1000} s and was ended`,
    { cause },
  );
}

/** An `ExecResult` from a collected process. */
export function toExecResult(collected: CollectedProcess, timedOut: boolean): ExecResult {
  const result: ExecResult = {
    exitCode: collected.exit.exitCode,
    stdout: collected.stdout.text,
    stderr: collected.stderr.text,
    timedOut,
  };
  if (collected.exit.signal) result.signal = collected.exit.signal;
  if (collected.stdout.truncated || collected.stderr.truncated) result.truncated = true;
  if (collected.exit.unconfirmed !== undefined) result.unconfirmed = collected.exit.unconfirmed;
  return result;
}
