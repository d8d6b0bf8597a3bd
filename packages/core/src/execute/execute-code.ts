/**
 * `executeCode()`: runs one model-written Python script in an environment, serves its tool calls
 * over a transport, and returns what it printed. Runtime failures (a dead backend, a missing
 * interpreter, a transport that breaks) come back as a result with status `error`; only invalid
 * options throw.
 *
 * It reads as its steps: prepare the run, make its dir, scrub its env, start serving tool calls,
 * install the guest while the transport opens, build the guest's env, supervise the script, compose
 * the result. Whatever a step started is ended in one place, the `finally` at the bottom. Around
 * the steps: the run's events (see `run-observer.ts`) and, where OpenTelemetry is installed, its span.
 */
import type { Environment } from "../environment.js";
import { scriptLaunch } from "../guest/launcher.js";
import { ApprovalGate } from "../rpc/approval-gate.js";
import type { RpcDispatcher } from "../rpc/dispatcher.js";
import { loadOpenTelemetry } from "../telemetry/open-telemetry.js";
import { RunTracing } from "../telemetry/run-tracing.js";
import { PausableTimer } from "../timers/pausable-timer.js";
import type { EventChannel } from "./event-channel.js";
import type { ExecuteCodeOptions } from "./execute-options.js";
import { guestEnv, scrubRunEnv } from "./guest-env.js";
import { installGuest } from "./install-guest.js";
import { openTransport, type OpenedTransport } from "./open-transport.js";
import { noCodeReason, prepareRun, type PreparedRun } from "./prepare-run.js";
import { composeResult, environmentFailureMessage, failedResult, type ExecuteCodeResult } from "./result.js";
import { createRunDispatcher } from "./run-dispatcher.js";
import { RunObserver } from "./run-observer.js";
import { superviseScript } from "./supervise-script.js";

/**
 * Runs the script and resolves to its result. Throws (rejects) only for invalid options; every
 * failure of the run itself is a result. `onEvent` (and the spans) see the run as it goes; for the
 * events as an async iterable, see `startExecution`.
 */
export async function executeCode(options: ExecuteCodeOptions): Promise<ExecuteCodeResult> {
  return runExecution(prepareRun(options), options);
}

/**
 * Runs a prepared run, reporting its events to the options' listeners, to `channel` (the async
 * iterable of `startExecution`) and to the spans; `finished` is the last event.
 */
export async function runExecution(run: PreparedRun, options: ExecuteCodeOptions, channel?: EventChannel): Promise<ExecuteCodeResult> {
  const api = options.telemetry === false ? undefined : await loadOpenTelemetry();
  const tracing = api === undefined ? undefined : new RunTracing(api, { ...(options.telemetry || {}), runId: run.runId });
  const observer = new RunObserver(options, channel, tracing);
  try {
    const result = await (tracing ? tracing.around(() => runSteps(run, options, observer, tracing)) : runSteps(run, options, observer, undefined));
    observer.emit({ type: "finished", runId: run.runId, result });
    return result;
  } finally {
    // Only when the steps threw (a defect): the iterable still ends and the span is still closed.
    observer.abandon();
  }
}

async function runSteps(
  run: PreparedRun,
  options: ExecuteCodeOptions,
  observer: RunObserver,
  tracing: RunTracing | undefined,
): Promise<ExecuteCodeResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) / 10) / 100;
  const { environment, limits } = run;
  const identity = { backend: environment.backendId, transport: run.candidates[0].id };
  const noCode = noCodeReason(run.code);
  if (noCode !== undefined) return failedResult(noCode, { durationSeconds: elapsed(), toolCallsMade: 0, ...identity });

  let runDir: string | undefined;
  let dispatcher: RpcDispatcher | undefined;
  // Kept as the promise, not its value: whatever ends the run early, a transport that is still
  // opening is awaited and closed in `finally`, so no server or relay outlives the call.
  let opening: Promise<OpenedTransport> | undefined;
  try {
    runDir = await environment.tempDir();
    const scrubbed = await scrubRunEnv(environment, options.env);
    const knownSecrets = options.redactSecrets === false ? undefined : scrubbed.secretValues;
    tracing?.maskSecrets(knownSecrets);
    // The script's time limit, paused while a tool call waits for approval.
    const timeLimit = new PausableTimer();
    dispatcher = createRunDispatcher(
      run,
      { env: scrubbed.env, ...(options.cwd ? { cwd: options.cwd } : {}) },
      {
        onEvent: observer.emit,
        ...(options.onApproval ? { onApproval: options.onApproval } : {}),
        approvalTimeoutMs: run.approvalTimeoutMs,
        holdTimeLimit: () => timeLimit.hold(),
        ...(tracing ? { runTool: (call, execute) => tracing.runTool(call, execute) } : {}),
      },
    );
    opening = openTransport(run.candidates, environment, {
      runId: run.runId,
      runDir,
      token: run.token,
      dispatcher,
      maxFrameBytes: limits.maxFrameBytes,
      interpreter: run.interpreter,
    });
    const guest = { environment, runDir, code: run.code, tools: run.tools, moduleName: run.moduleName };
    const { scriptPath, archivePath, opened } = await installGuest(guest, run.candidates[0], opening);
    identity.transport = opened.transport.id;
    observer.emit({ type: "started", runId: run.runId, ...identity });

    const supervised = await superviseScript({
      environment,
      launch: scriptLaunch(run.interpreter, scriptPath, archivePath, options.scriptName),
      env: guestEnv({
        scrubbed: scrubbed.env,
        transport: opened.session.guestEnv,
        runDir,
        maxFrameBytes: limits.maxFrameBytes,
        // Someone watches the output live (a callback, an event listener, an iterable): line-buffered.
        liveOutput: observer.wantsOutput("stdout") || observer.wantsOutput("stderr"),
      }),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      limits,
      runId: run.runId,
      knownSecrets,
      signal: options.signal,
      ...(observer.wantsOutput("stdout")
        ? { onStdout: (chunk: Uint8Array) => observer.emitOutput({ type: "stdout", runId: run.runId, chunk }) }
        : {}),
      ...(observer.wantsOutput("stderr")
        ? { onStderr: (chunk: Uint8Array) => observer.emitOutput({ type: "stderr", runId: run.runId, chunk }) }
        : {}),
      timeLimit,
      maxPauseMs: maxApprovalPauseMs(run, options),
      onStopping: (reason) => dispatcher?.close(reason === "timeout" ? "the script timed out" : "the run was interrupted"),
    });
    return composeResult({
      run: supervised,
      timeoutMs: limits.timeoutMs,
      toolCallsMade: dispatcher.toolCallsMade,
      refusalNotice: dispatcher.refusals.notice("run"),
      durationSeconds: elapsed(),
      interpreter: run.interpreter,
      knownSecrets,
      transportsSkipped: opened.skipped,
      guest: { moduleName: run.moduleName, toolNames: run.tools.map((tool) => tool.name) },
      ...identity,
    });
  } catch (error) {
    const message = environmentFailureMessage(environment.backendId, error);
    return failedResult(message, { durationSeconds: elapsed(), toolCallsMade: dispatcher?.toolCallsMade ?? 0, ...identity });
  } finally {
    dispatcher?.close();
    // Calls cancelled by the close report their end now, before the run's last event.
    await dispatcher?.idle();
    const opened = await opening?.catch(() => undefined);
    await opened?.session.close().catch(() => {});
    if (runDir !== undefined) await removeRunDir(environment, runDir);
  }
}

async function removeRunDir(environment: Environment, runDir: string): Promise<void> {
  try {
    await environment.remove(runDir);
  } catch {
    // The environment may be gone (that is how the run failed); nothing is left to clean then.
  }
}

/**
 * How long approvals can pause the time limit in total: every wait counts against the tool-call
 * budget and lasts at most the approval timeout. Zero when no call can wait (no approver, or no
 * tool that may need approval: without an approver, such calls are denied at once).
 */
function maxApprovalPauseMs(run: PreparedRun, options: ExecuteCodeOptions): number {
  const mayWait = run.tools.some((tool) => ApprovalGate.mayWait(tool, options.onApproval));
  return mayWait ? run.limits.maxToolCalls * run.approvalTimeoutMs : 0;
}
