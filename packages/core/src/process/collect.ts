/**
 * Helpers for backends and for `executeCode`: drain a process's streams into bounded captures
 * while it runs, and collect an `execute()` result from a spawned process.
 */
import type { EnvironmentProcess, ExecResult, ProcessExit } from "../environment.js";
import { callSafely } from "../safe-callback.js";
import { createCapture, type ByteCapture, type CapturedOutput } from "../execute/output-capture.js";

/**
 * Reads a stream to its end into `capture`, calling `onChunk` for live output. Never rejects.
 * Aborting `stop` cancels the read, releasing the stream (a pipe a leftover process still holds).
 */
export async function drainStream(
  stream: ReadableStream<Uint8Array>,
  capture: ByteCapture,
  onChunk?: (chunk: Uint8Array) => void,
  stop?: AbortSignal,
): Promise<void> {
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  stop?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      capture.push(value);
      callSafely(onChunk, value);
    }
  } catch {
    // A stream torn down by a kill or a lost connection just ends the capture.
  } finally {
    stop?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

/** Writes `data` (or nothing) to a process's stdin and closes it. Never rejects. */
export async function writeStdin(stdin: WritableStream<Uint8Array>, data?: string | Uint8Array): Promise<void> {
  const writer = stdin.getWriter();
  try {
    if (data !== undefined && data.length > 0) {
      await writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
    }
    await writer.close();
  } catch {
    // The process may exit without reading its input; that is its business.
  } finally {
    writer.releaseLock();
  }
}

export interface CollectOptions {
  stdin?: string | Uint8Array;
  /** Per stream (head and tail kept); default unlimited. */
  maxOutputBytes?: number;
}

export interface CollectedProcess {
  exit: ProcessExit;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
}

/** Feeds stdin, drains both streams and waits for the exit. */
export async function collectProcess(process: EnvironmentProcess, options: CollectOptions = {}): Promise<CollectedProcess> {
  const stdout = createCapture(options.maxOutputBytes);
  const stderr = createCapture(options.maxOutputBytes);
  const [exit] = await Promise.all([
    process.wait(),
    writeStdin(process.stdin, options.stdin),
    drainStream(process.stdout, stdout),
    drainStream(process.stderr, stderr),
  ]);
  return { exit, stdout: stdout.finish(), stderr: stderr.finish() };
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
  return result;
}
