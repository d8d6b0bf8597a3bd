/**
 * Runs the script process to its end: bounded capture of stdout/stderr with live callbacks (secrets
 * masked), the wall-time limit and the abort signal, both of which end the whole process tree
 * (SIGTERM, then SIGKILL after the grace period).
 *
 * The time limit is a {@link PausableTimer} the run shares with its dispatcher: it stops while a
 * tool call waits for approval. The backstop inside the environment (armed with the spawn, for a
 * host that never gets to kill) cannot be paused, so it is pushed out by the longest total pause
 * the run allows (`maxPauseMs`: the tool-call budget times the approval timeout).
 */
import type { Environment, ProcessExit } from "../environment.js";
import { errorMessage } from "../errors.js";
import { delay } from "../timers/delay.js";
import { PausableTimer } from "../timers/pausable-timer.js";
import type { ScriptLaunch } from "../guest/launcher.js";
import { drainStream, writeStdin } from "../process/collect.js";
import { MAX_DURATION_MS, type ExecutionLimits } from "./limits.js";
import { OutputCapture, type CapturedOutput } from "./output-capture.js";
import { redactingSink } from "./redacting-sink.js";
import { finishCapture, outputSpill } from "./spill-output.js";

/** Why the script stopped; `lost` means the environment failed under it (a dead container, a dropped connection). */
export type StopReason = "exited" | "timeout" | "interrupted" | "lost";

export interface SuperviseOptions {
  environment: Environment;
  /** The script's command, and what runs instead where the environment holds its tree (see `scriptLaunch`). */
  launch: ScriptLaunch;
  env: Readonly<Record<string, string>>;
  cwd?: string;
  limits: Pick<ExecutionLimits, "timeoutMs" | "killGraceMs" | "maxStdoutBytes" | "maxStderrBytes"> & Partial<Pick<ExecutionLimits, "spillBytes">>;
  /** Names the file truncated stdout is saved to (see `spill-output.ts`); default: a fresh id. */
  runId?: string;
  /**
   * Secret values: masked in the live output (see `redactingSink`), and the captures' truncation
   * cut does not split them (see `OutputCapture`). Undefined: redaction off.
   */
  knownSecrets?: readonly string[];
  signal?: AbortSignal;
  /**
   * Live output, as it arrives (uncapped). A promise back holds the stream until it settles: the
   * script's writes wait once its pipe is full, so a slow consumer costs no memory here.
   */
  onStdout?: (chunk: Uint8Array) => unknown;
  onStderr?: (chunk: Uint8Array) => unknown;
  /** The time limit's timer, when the run pauses it (approvals); default: one of its own. */
  timeLimit?: PausableTimer;
  /** The longest total time `timeLimit` may be paused (moves the in-environment backstop out). */
  maxPauseMs?: number;
  /** Called once, as soon as the script must stop (before the kill completes). */
  onStopping?: (reason: "timeout" | "interrupted") => void;
}

/** How the run ended: the process exit, or why the environment lost the process. */
export type RunEnding = { reason: Exclude<StopReason, "lost">; exit: ProcessExit } | { reason: "lost"; lostBecause: string };

export type SupervisedRun = RunOutput & RunEnding;

interface RunOutput {
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  /** The abort reason, when interrupted and it was given as text or an Error. */
  interruptReason?: string;
}

/** How long streams may stay open after the process is gone (they close at once normally). */
const STREAM_DRAIN_GRACE_MS = 2_000;

export async function superviseScript(options: SuperviseOptions): Promise<SupervisedRun> {
  const { limits, knownSecrets } = options;
  const process = await options.environment.spawn(options.launch.command, {
    whenTreeHeld: options.launch.whenTreeHeld,
    env: options.env,
    clearEnv: true,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    // Backstop inside the environment, should the host-side timer below never get to run.
    timeoutMs: limits.timeoutMs + limits.killGraceMs + 5_000 + Math.min(options.maxPauseMs ?? 0, MAX_DURATION_MS),
  });
  const guard = knownSecrets === undefined ? {} : { guardSecrets: knownSecrets };
  const spill = outputSpill({
    environment: options.environment,
    spillBytes: limits.spillBytes ?? 0,
    capBytes: limits.maxStdoutBytes,
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(knownSecrets === undefined ? {} : { knownSecrets }),
  });
  const stdout = new OutputCapture(limits.maxStdoutBytes, { ...guard, ...(spill === undefined ? {} : { spill }) });
  const stderr = new OutputCapture(limits.maxStderrBytes, guard);
  const stdoutSink = options.onStdout && redactingSink(options.onStdout, knownSecrets);
  const stderrSink = options.onStderr && redactingSink(options.onStderr, knownSecrets);
  const released = new AbortController();
  // Once the script has exited (or is being stopped), a live consumer's holds are let go: what is
  // left is a pipe's worth, read at once rather than lost to the drain grace below behind a slow reader.
  const letGo = new AbortController();
  const drained = Promise.all([
    drainStream(process.stdout, stdout, stdoutSink?.write, released.signal, letGo.signal),
    drainStream(process.stderr, stderr, stderrSink?.write, released.signal, letGo.signal),
  ]);
  void writeStdin(process.stdin);

  let reason: StopReason = "exited";
  let interruptReason: string | undefined;
  const stop = (why: "timeout" | "interrupted") => {
    if (reason !== "exited") return;
    reason = why;
    options.onStopping?.(why);
    // Being stopped, the script writes nothing more worth waiting for: a consumer's holds would
    // only delay its end (a backend that reports the exit, or completes the kill, once all output
    // is read would wait for its backstop). What it writes during the kill grace is read at once.
    letGo.abort();
    // A backend's kill that rejects must not become an unhandled rejection in the embedding host:
    // the run ends by its exit, or by the exit-after-kill backstop, either way.
    void Promise.resolve()
      .then(() => process.kill({ graceMs: limits.killGraceMs }))
      .catch(() => {});
  };
  const timer = options.timeLimit ?? new PausableTimer();
  timer.start(limits.timeoutMs, () => stop("timeout"));
  const onAbort = () => {
    const cause: unknown = options.signal?.reason;
    if (typeof cause === "string" || cause instanceof Error) interruptReason = errorMessage(cause);
    stop("interrupted");
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    let ending: RunEnding;
    try {
      const exit = await process.wait();
      ending = { reason, exit };
    } catch (error) {
      // The backend died under the script. What it printed so far is kept: it is often exactly
      // what the model needs to see (how far the script got).
      ending = { reason: "lost", lostBecause: errorMessage(error) };
    }
    letGo.abort();
    // The script's process has exited and the backend has ended what it left, so the pipes close
    // at once. The grace keeps what is still in them; past it the streams are let go, so a
    // leftover that holds a pipe (one nothing could find) neither delays the result nor keeps
    // the host process alive.
    await Promise.race([drained, delay(STREAM_DRAIN_GRACE_MS, { unref: true })]);
    released.abort();
    // The script is over: the limit must not fire while its output is being saved.
    timer.clear();
    stdoutSink?.end();
    stderrSink?.end();
    // A lost environment cannot take the file: the notice says so without trying more.
    const unavailable = ending.reason === "lost" ? "the environment failed" : undefined;
    const output: RunOutput = { stdout: await finishCapture(stdout, spill, unavailable), stderr: stderr.finish() };
    if (interruptReason !== undefined) output.interruptReason = interruptReason;
    return { ...output, ...ending };
  } finally {
    timer.clear();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
