/**
 * The result of one execution, and how it is composed from what the script left: the text the
 * model reads (`output`) is ANSI-stripped and secret-redacted, says why the run stopped, and
 * carries stderr only when the script failed.
 */
import { CodecallError, errorMessage } from "../errors.js";
import { stripAnsi } from "../text/ansi.js";
import { redactSecrets } from "../text/redact.js";
import { failureHint, type HintContext } from "./failure-hints.js";
import type { CapturedOutput } from "./output-capture.js";
import type { SupervisedRun } from "./supervise-script.js";

export type ExecuteCodeStatus = "success" | "error" | "timeout" | "interrupted";

export interface ExecuteCodeResult {
  status: ExecuteCodeStatus;
  /** What the model reads: the script's stdout (and, on failure, stderr and the reason). */
  output: string;
  /** The script's exit code; `null` when it never ran. */
  exitCode: number | null;
  /** Tool calls dispatched (refused ones do not count). */
  toolCallsMade: number;
  /** Wall time including setup, rounded to 10 ms. */
  durationSeconds: number;
  /** Why the run did not succeed, in one line. */
  error?: string;
  /** Stdout exceeded its limit; the middle was cut. */
  stdoutTruncated: boolean;
  stdoutBytesTotal: number;
  stdoutBytesCaptured: number;
  stdoutBytesOmitted: number;
  /**
   * The file in the environment holding the whole stdout (or its first `spillBytes`) when it was
   * truncated and saved; the truncation notice in `output` names it too.
   */
  stdoutSpillPath?: string;
  /** Stderr as captured (processed like `output`), for logs; not shown to the model on success. */
  stderr: string;
  stderrTruncated: boolean;
  /** Which backend and transport served the run. */
  backend: string;
  transport: string;
  /**
   * Transports preferred over `transport` that supported the environment but failed to open, each
   * as "id: why" (e.g. a stream relay that could not start). Absent when the first one served.
   */
  transportsSkipped?: string[];
}

export interface ComposeInput {
  run: SupervisedRun;
  timeoutMs: number;
  toolCallsMade: number;
  durationSeconds: number;
  backend: string;
  transport: string;
  /** The interpreter command, for the message when it is missing. */
  interpreter: string;
  /** Exact values to redact (host secrets). `undefined` turns redaction off. */
  knownSecrets: readonly string[] | undefined;
  /** Preferred transports that failed to open (see {@link ExecuteCodeResult.transportsSkipped}). */
  transportsSkipped: readonly string[];
  /** The tools module the script imports, for the hint after a failure (see failure-hints.ts). */
  guest: HintContext;
  /** What a timeout did, when not "Script timed out after …s and was killed." (a session's cell is interrupted instead). */
  timeoutMessage?: string;
  /** Said after the output: the host stopped reading the run's requests (see `RefusalBudget.notice`). */
  refusalNotice?: string | undefined;
}

/** Exit code of `sh` when the command was not found. */
const COMMAND_NOT_FOUND = 127;

export function composeResult(input: ComposeInput): ExecuteCodeResult {
  const { run } = input;
  const clean = (text: string) => {
    const stripped = stripAnsi(text);
    return input.knownSecrets === undefined ? stripped : redactSecrets(stripped, { knownSecrets: input.knownSecrets });
  };
  const stdout = clean(run.stdout.text);
  const stderr = clean(run.stderr.text);
  const withStderr = stderr.trim() === "" ? stdout : `${stdout}${stdout === "" || stdout.endsWith("\n") ? "" : "\n"}--- stderr ---\n${stderr}`;

  let status: ExecuteCodeStatus;
  let output: string;
  let error: string | undefined;
  if (run.reason === "lost") {
    status = "error";
    error = `${input.backend} environment failed: ${run.lostBecause}`;
    output = appendNotice(withStderr, error);
  } else if (run.reason === "timeout") {
    status = "timeout";
    error = input.timeoutMessage ?? `Script timed out after ${formatSeconds(input.timeoutMs)} and was killed.`;
    if (run.exit.unconfirmed !== undefined) error += ` But ${run.exit.unconfirmed}.`;
    output = appendNotice(withStderr, `⏰ ${error}`);
  } else if (run.reason === "interrupted") {
    status = "interrupted";
    error = `Script was interrupted${run.interruptReason ? `: ${run.interruptReason}` : ""}`;
    const unconfirmed = run.exit.unconfirmed === undefined ? "" : ` — but ${run.exit.unconfirmed}`;
    error += unconfirmed;
    output = appendNotice(stdout, `[execution interrupted${run.interruptReason ? ` — ${run.interruptReason}` : ""}${unconfirmed}]`);
  } else if (run.exit.exitCode === 0) {
    status = "success";
    output = stdout;
  } else {
    status = "error";
    error = failureReason(run.exit.exitCode, run.exit.signal, stderr, input.interpreter);
    const hint = failureHint(stderr, input.guest);
    output = withStderr === "" ? error : withStderr;
    if (hint !== undefined) output = appendNotice(output, `Hint: ${hint}`);
  }

  if (input.refusalNotice !== undefined) output = appendNotice(output, input.refusalNotice);

  const result: ExecuteCodeResult = {
    status,
    output,
    exitCode: run.reason === "lost" ? null : run.exit.exitCode,
    toolCallsMade: input.toolCallsMade,
    durationSeconds: input.durationSeconds,
    ...truncation(run.stdout),
    stderr,
    stderrTruncated: run.stderr.truncated,
    backend: input.backend,
    transport: input.transport,
  };
  if (error !== undefined) result.error = error;
  if (input.transportsSkipped.length > 0) result.transportsSkipped = [...input.transportsSkipped];
  return result;
}

/** A result for a run that failed before or around the script (setup, backend, transport). */
export function failedResult(
  message: string,
  fields: { durationSeconds: number; toolCallsMade: number; backend: string; transport: string },
): ExecuteCodeResult {
  return {
    status: "error",
    output: message,
    exitCode: null,
    error: message,
    stdoutTruncated: false,
    stdoutBytesTotal: 0,
    stdoutBytesCaptured: 0,
    stdoutBytesOmitted: 0,
    stderr: "",
    stderrTruncated: false,
    ...fields,
  };
}

/** Why a run failed around its script: the environment, or every transport, gave way. */
export function environmentFailureMessage(backend: string, error: unknown): string {
  return CodecallError.isInstance(error, "TRANSPORT_FAILED")
    ? `The ${backend} environment could not be reached by any transport: ${errorMessage(error)}`
    : `${backend} environment failed: ${errorMessage(error)}`;
}

/** True when `sh` could not find the command it was asked to run. */
export function isCommandNotFound(exitCode: number, stderr: string): boolean {
  return exitCode === COMMAND_NOT_FOUND && /not found|No such file/.test(stderr);
}

/** What to tell the user when the Python interpreter is not in the environment. */
export function missingInterpreterMessage(interpreter: string): string {
  return `${interpreter} is not available in this environment. Install Python 3 there, or point the interpreter option at it.`;
}

function failureReason(exitCode: number, signal: string | undefined, stderr: string, interpreter: string): string {
  if (isCommandNotFound(exitCode, stderr)) return missingInterpreterMessage(interpreter);
  if (signal) return `Script was killed by ${signal}`;
  const lastLine = stderr.trim().split("\n").pop()?.trim();
  return `Script exited with code ${exitCode}${lastLine ? `: ${lastLine}` : ""}`;
}

function truncation(stdout: CapturedOutput) {
  return {
    stdoutTruncated: stdout.truncated,
    stdoutBytesTotal: stdout.totalBytes,
    stdoutBytesCaptured: stdout.capturedBytes,
    stdoutBytesOmitted: stdout.omittedBytes,
    ...(stdout.spillPath === undefined ? {} : { stdoutSpillPath: stdout.spillPath }),
  };
}

/** `text` with a notice after it, set apart by a blank line. */
export function appendNotice(text: string, notice: string): string {
  if (text === "") return notice;
  return `${text}${text.endsWith("\n") ? "\n" : "\n\n"}${notice}`;
}

/** A duration as the messages give it: "5s", "0.5s". */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)}s`;
}
