/**
 * `createCodeSession()`: a Python kernel kept alive in an environment, so that state survives
 * from one call to the next — imports, variables, functions, open files, threads. Each cell is a
 * run as `executeCode` makes one: its own time limit, output capture and truncation, tool-call
 * budget, events and result, composed by the same code. What differs is what a stop does: a
 * timed-out or aborted cell is interrupted (KeyboardInterrupt), and only a kernel that does not
 * answer within the kill grace is killed — then the result says plainly that the state was lost.
 *
 * The kernel is started by the first cell (and again by the first after a reset or a loss); its
 * transport stays open for its whole life, so a cell costs one message down the kernel's stdin
 * and its output back, on every backend.
 */
import { CodecallError } from "../errors.js";
import type { CapturedOutput } from "../execute/output-capture.js";
import { prepareRun, noCodeReason, type PreparedRun } from "../execute/prepare-run.js";
import { redactingSink } from "../execute/redacting-sink.js";
import { appendNotice, composeResult, environmentFailureMessage, failedResult, formatSeconds, type ExecuteCodeResult } from "../execute/result.js";
import { createRunDispatcher } from "../execute/run-dispatcher.js";
import { RunObserver } from "../execute/run-observer.js";
import { finishCapture, outputSpill } from "../execute/spill-output.js";
import type { SupervisedRun } from "../execute/supervise-script.js";
import { newRunId } from "../ids.js";
import { PausableTimer } from "../timers/pausable-timer.js";
import { CellStop } from "./cell-stop.js";
import type { CellEnding, CellOutput } from "./kernel-process.js";
import type { CodeSession, CodeSessionOptions, CodeSessionResult, CodeSessionRunOptions, CodeSessionState } from "./session-options.js";
import { startKernel, type StartedKernel } from "./start-kernel.js";

/**
 * Creates a session. Throws for invalid options (as `executeCode` rejects for them); starts
 * nothing until the first `run`. The environment is not the session's: `close()` leaves it open.
 */
export function createCodeSession(options: CodeSessionOptions): CodeSession {
  return new Session(options);
}

/** Why a kernel ended, when the session ended it on purpose. */
type EndedBy = "reset" | "close";

class Session implements CodeSession {
  readonly id = newRunId();
  readonly #options: CodeSessionOptions;
  readonly #prepared: PreparedRun;
  #kernel: StartedKernel | undefined;
  /** Kernels the session itself ended, and why (a cell running in one says so). */
  readonly #endedBy = new WeakMap<StartedKernel, EndedBy>();
  /** Why the state was lost since the last cell, when it was and no result has said so yet. */
  #lostSince: string | undefined;
  #cells = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Settles once a kernel being started is up and the session's (or closed, when the session was closed meanwhile). */
  #starting: Promise<void> = Promise.resolve();

  constructor(options: CodeSessionOptions) {
    this.#options = options;
    this.#prepared = prepareRun({ ...options, code: "" });
  }

  get closed(): boolean {
    return this.#closed;
  }

  run(code: string, options: CodeSessionRunOptions = {}): Promise<CodeSessionResult> {
    if (this.#closed) return Promise.reject(new CodecallError("SESSION_CLOSED", "The code session is closed; create a new one."));
    const number = ++this.#cells;
    const cell = this.#queue.then(() => this.#runCell(number, code, options.signal));
    this.#queue = cell.catch(() => {});
    return cell;
  }

  async reset(): Promise<void> {
    await this.#endKernel("reset");
    this.#lostSince = undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#endKernel("close");
    // A kernel still starting (for the first cell, or after a lost one) is closed as soon as it is
    // up: nothing of the session may outlive close(), and the environment may be closed next.
    await this.#starting;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #endKernel(by: EndedBy): Promise<void> {
    const kernel = this.#kernel;
    if (kernel === undefined) return;
    this.#kernel = undefined;
    this.#endedBy.set(kernel, by);
    await kernel.close();
  }

  async #runCell(number: number, code: string, signal: AbortSignal | undefined): Promise<CodeSessionResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) / 10) / 100;
    const { environment } = this.#prepared;
    const identity = { backend: environment.backendId, transport: this.#prepared.candidates[0].id };
    const failed = (message: string) => failedResult(message, { durationSeconds: elapsed(), toolCallsMade: 0, ...identity });
    const closedMessage = "The code session was closed before the cell ran.";
    if (this.#closed) return cellResult(failed(closedMessage), number, "kept");
    const noCode = noCodeReason(code);
    if (noCode !== undefined) return cellResult(failed(noCode), number, "kept");

    const previous = this.#kernel;
    if (previous?.process.ended !== undefined) {
      this.#lostSince = `the session's kernel had ended since the last cell (${describeEnding(previous.process.ended)})`;
      await this.#endKernel("reset");
    }
    const observer = new RunObserver(this.#options);
    let kernel = this.#kernel;
    const fresh = kernel === undefined;
    if (kernel === undefined) {
      const starting = this.#startKernel(observer.wantsOutput("stdout") || observer.wantsOutput("stderr"), signal);
      this.#starting = starting.then(
        () => undefined,
        () => undefined,
      );
      try {
        kernel = await starting;
      } catch (error) {
        const result = this.#withState(failed(environmentFailureMessage(environment.backendId, error)), number, "fresh");
        observer.emit({ type: "finished", runId: `${this.id}-${number}`, result });
        return result;
      }
      if (kernel === undefined) return cellResult(failed(closedMessage), number, "kept");
    }
    identity.transport = kernel.opened.transport.id;
    const { result, killed, ending } = await this.#supervise(kernel, number, code, signal, observer, elapsed, identity);
    if (fresh && kernel.opened.skipped.length > 0) result.transportsSkipped = [...kernel.opened.skipped];
    const final = this.#finishCell(kernel, result, ending, killed, number, fresh);
    observer.emit({ type: "finished", runId: `${this.id}-${number}`, result: final });
    return final;
  }

  /** Starts a kernel and makes it the session's; one that is up only after close() is closed instead (undefined). */
  async #startKernel(wantsOutput: boolean, signal: AbortSignal | undefined): Promise<StartedKernel | undefined> {
    const kernel = await startKernel(this.#prepared, this.#options, wantsOutput, signal);
    if (this.#closed) {
      await kernel.close();
      return undefined;
    }
    this.#kernel = kernel;
    return kernel;
  }

  async #supervise(
    kernel: StartedKernel,
    number: number,
    code: string,
    signal: AbortSignal | undefined,
    observer: RunObserver,
    elapsed: () => number,
    identity: { backend: string; transport: string },
  ): Promise<{ result: ExecuteCodeResult; killed: boolean; ending: CellEnding }> {
    const { limits } = this.#prepared;
    const runId = `${this.id}-${number}`;
    const timeLimit = new PausableTimer();
    const dispatcher = createRunDispatcher(
      { ...this.#prepared, runId, token: kernel.token },
      { env: kernel.scrubbed.env, ...(this.#options.cwd ? { cwd: this.#options.cwd } : {}) },
      {
        onEvent: observer.emit,
        ...(this.#options.onApproval ? { onApproval: this.#options.onApproval } : {}),
        approvalTimeoutMs: this.#prepared.approvalTimeoutMs,
        holdTimeLimit: () => timeLimit.hold(),
      },
    );
    kernel.dispatcher.begin({ number, dispatcher });
    observer.emit({ type: "started", runId, ...identity });

    const stop = new CellStop({
      timeLimit,
      timeoutMs: limits.timeoutMs,
      killGraceMs: limits.killGraceMs,
      signal,
      onStopping: (why) => dispatcher.close(why === "timeout" ? "the cell timed out" : "the cell was interrupted"),
      interrupt: () => kernel.process.interrupt(number),
      kill: () => void kernel.process.kill(),
    });
    const sink = (listen: boolean, emit: (chunk: Uint8Array) => unknown) => (listen ? redactingSink(emit, kernel.knownSecrets) : undefined);
    const stdoutSink = sink(observer.wantsOutput("stdout"), (chunk) => observer.emitOutput({ type: "stdout", runId, chunk }));
    const stderrSink = sink(observer.wantsOutput("stderr"), (chunk) => observer.emitOutput({ type: "stderr", runId, chunk }));
    const spill = outputSpill({
      environment: this.#options.environment,
      runId,
      spillBytes: limits.spillBytes,
      capBytes: limits.maxStdoutBytes,
      ...(kernel.knownSecrets === undefined ? {} : { knownSecrets: kernel.knownSecrets }),
    });
    let output: CellOutput;
    try {
      // A cell whose signal was aborted before it is sent (it waited behind another cell, or for
      // its kernel to start) must not run at all: an interrupt that reaches the kernel before its
      // cell makes the kernel end the cell unstarted. Sent first, it cannot lose to the cell's start.
      if (signal?.aborted) kernel.process.interrupt(number);
      // Sent before the stop is armed: otherwise an interrupt always comes after its cell.
      const running = kernel.process.run(number, code, {
        maxStdoutBytes: limits.maxStdoutBytes,
        maxStderrBytes: limits.maxStderrBytes,
        guardSecrets: kernel.knownSecrets,
        ...(spill === undefined ? {} : { spill }),
        ...(stdoutSink ? { stdout: stdoutSink } : {}),
        ...(stderrSink ? { stderr: stderrSink } : {}),
      });
      stop.arm();
      output = await running;
    } finally {
      stop.disarm();
      kernel.dispatcher.end();
      dispatcher.close();
      await dispatcher.idle();
    }
    // Finished only now, with the cell's time limit off: saving stdout over its cap may take a while.
    const stdout = await finishCapture(output.stdout, spill, output.ending.kind === "lost" ? "the environment failed" : undefined);
    const supervised = supervisedRun({ stdout, stderr: output.stderr.finish() }, output.ending, stop.reason, stop.interruptReason);
    const result = composeResult({
      run: supervised,
      timeoutMs: limits.timeoutMs,
      toolCallsMade: dispatcher.toolCallsMade,
      refusalNotice: dispatcher.refusals.notice("cell"),
      durationSeconds: elapsed(),
      interpreter: this.#prepared.interpreter,
      knownSecrets: kernel.knownSecrets,
      transportsSkipped: [],
      guest: { moduleName: this.#prepared.moduleName, toolNames: this.#prepared.tools.map((tool) => tool.name) },
      timeoutMessage: `Cell timed out after ${formatSeconds(limits.timeoutMs)} and was ${stop.killed ? "killed: it did not stop when interrupted" : "interrupted"}.`,
      ...identity,
    });
    return { result, killed: stop.killed, ending: output.ending };
  }

  /** The cell's result with its state: lost when its kernel ended during it, or had before it. */
  #finishCell(
    kernel: StartedKernel,
    composed: ExecuteCodeResult,
    ending: CellEnding,
    killed: boolean,
    number: number,
    fresh: boolean,
  ): CodeSessionResult {
    const why = (ending.kind === "finished" ? ending.kernelEnds : undefined) ?? this.#whyKernelEnded(kernel, killed);
    if (why === undefined) return this.#withState(composed, number, fresh ? "fresh" : "kept");
    if (this.#kernel === kernel) void this.#endKernel("reset");
    // A reset or close is the caller's own doing: the next cell starts fresh without a notice.
    this.#lostSince = undefined;
    return loseState(composed, number, why);
  }

  /** Why `kernel` ended during a cell, or undefined while it runs on. */
  #whyKernelEnded(kernel: StartedKernel, killed: boolean): string | undefined {
    const ended = kernel.process.ended;
    if (ended === undefined) return undefined;
    const by = this.#endedBy.get(kernel);
    if (by === "reset") return "the session was reset while the cell ran";
    if (by === "close") return "the session was closed while the cell ran";
    if (killed)
      return `the cell did not stop within ${formatSeconds(this.#prepared.limits.killGraceMs)} of being interrupted, so the session's kernel was killed`;
    return `the session's kernel ended during the cell (${describeEnding(ended)})`;
  }

  /** A result of a cell that ran in a fresh kernel: `lost` (with the note) when a loss is still unreported. */
  #withState(result: ExecuteCodeResult, number: number, state: CodeSessionState): CodeSessionResult {
    const lost = this.#lostSince;
    this.#lostSince = undefined;
    if (lost !== undefined && state === "fresh") return loseState(result, number, `${lost}; this cell ran in a fresh one`);
    return cellResult(result, number, state);
  }
}

function cellResult(result: ExecuteCodeResult, cell: number, state: CodeSessionState): CodeSessionResult {
  return { ...result, cell, state };
}

function loseState(result: ExecuteCodeResult, cell: number, why: string): CodeSessionResult {
  const note = `The session's state (variables, imports, functions) was lost: ${why}. The next cell starts fresh.`;
  return { ...result, output: appendNotice(result.output, `⚠ ${note}`), cell, state: "lost", stateNote: note };
}

/** The kernel's account of the cell in the shape `composeResult` reads (a run's). */
function supervisedRun(
  output: { stdout: CapturedOutput; stderr: CapturedOutput },
  ending: CellEnding,
  reason: "exited" | "timeout" | "interrupted",
  interruptReason: string | undefined,
): SupervisedRun {
  const streams = { ...output, ...(interruptReason === undefined ? {} : { interruptReason }) };
  if (ending.kind === "lost") return { ...streams, reason: "lost", lostBecause: ending.because };
  if (ending.kind === "died") return { ...streams, reason, exit: ending.exit };
  // A cell that ended by itself after the stop (it caught the interrupt and finished) still stopped for it.
  return { ...streams, reason, exit: { exitCode: ending.exitCode } };
}

function describeEnding(ending: CellEnding): string {
  if (ending.kind === "lost") return `its environment failed: ${ending.because}`;
  if (ending.kind === "died") return ending.exit.signal ? `killed by ${ending.exit.signal}` : `exit code ${ending.exit.exitCode}`;
  return "it stopped";
}
