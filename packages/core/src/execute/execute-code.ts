/**
 * `executeCode()`: runs one model-written Python script in an environment, serves its tool calls
 * over a transport, and returns what it printed. Runtime failures (a dead backend, a missing
 * interpreter, a transport that breaks) come back as a result with status `error`; only invalid
 * options throw.
 *
 * It reads as its steps: prepare the run, make its dir, scrub its env, start serving tool calls,
 * install the guest while the transport opens, build the guest's env, supervise the script, compose
 * the result. Whatever a step started is ended in one place, the `finally` at the bottom.
 */
import type { Environment } from "../environment.js";
import { launchScriptCommand } from "../guest/launcher.js";
import type { RpcDispatcher } from "../rpc/dispatcher.js";
import type { ExecuteCodeOptions } from "./execute-options.js";
import { guestEnv, scrubRunEnv } from "./guest-env.js";
import { installGuest } from "./install-guest.js";
import { openTransport, type OpenedTransport } from "./open-transport.js";
import { hasCode, prepareRun } from "./prepare-run.js";
import { composeResult, environmentFailureMessage, failedResult, type ExecuteCodeResult } from "./result.js";
import { createRunDispatcher } from "./run-dispatcher.js";
import { superviseScript } from "./supervise-script.js";

export async function executeCode(options: ExecuteCodeOptions): Promise<ExecuteCodeResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) / 10) / 100;
  const run = prepareRun(options);
  const { environment, limits } = run;
  const identity = { backend: environment.backendId, transport: run.candidates[0].id };
  if (!hasCode(run.code)) return failedResult("No code provided.", { durationSeconds: elapsed(), toolCallsMade: 0, ...identity });

  let runDir: string | undefined;
  let dispatcher: RpcDispatcher | undefined;
  // Kept as the promise, not its value: whatever ends the run early, a transport that is still
  // opening is awaited and closed in `finally`, so no server or relay outlives the call.
  let opening: Promise<OpenedTransport> | undefined;
  try {
    runDir = await environment.tempDir();
    const scrubbed = await scrubRunEnv(environment, options.env);
    const knownSecrets = options.redactSecrets === false ? undefined : scrubbed.secretValues;
    dispatcher = createRunDispatcher(run, { env: scrubbed.env, ...(options.cwd ? { cwd: options.cwd } : {}) }, options.onToolCall);
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

    const supervised = await superviseScript({
      environment,
      command: launchScriptCommand(run.interpreter, scriptPath, archivePath),
      env: guestEnv({
        scrubbed: scrubbed.env,
        transport: opened.session.guestEnv,
        runDir,
        maxFrameBytes: limits.maxFrameBytes,
        liveOutput: options.onStdout !== undefined || options.onStderr !== undefined,
      }),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      limits,
      knownSecrets,
      signal: options.signal,
      onStdout: options.onStdout,
      onStderr: options.onStderr,
      onStopping: (reason) => dispatcher?.close(reason === "timeout" ? "the script timed out" : "the run was interrupted"),
    });
    return composeResult({
      run: supervised,
      timeoutMs: limits.timeoutMs,
      toolCallsMade: dispatcher.toolCallsMade,
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
