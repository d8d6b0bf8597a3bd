/**
 * The dispatcher that serves one run's tool calls: the allow-listed tools, the run's token and
 * limits, and the environment as tools see it during the run (its scrubbed env and working
 * directory, see {@link ScopedEnvironment}).
 */
import { RpcDispatcher, type RpcDispatcherOptions } from "../rpc/dispatcher.js";
import type { PreparedRun } from "./prepare-run.js";
import { ScopedEnvironment, type RunScope } from "./scoped-environment.js";

/** What the run adds to the dispatcher: where its events go, who approves, and its time limit. */
export type RunDispatcherHooks = Pick<RpcDispatcherOptions, "onEvent" | "onApproval" | "approvalTimeoutMs" | "holdTimeLimit" | "runTool">;

export function createRunDispatcher(run: PreparedRun, scope: RunScope, hooks: RunDispatcherHooks): RpcDispatcher {
  return new RpcDispatcher({
    tools: run.tools,
    token: run.token,
    maxToolCalls: run.limits.maxToolCalls,
    maxFrameBytes: run.limits.maxFrameBytes,
    maxJsonDepth: run.limits.maxJsonDepth,
    environment: new ScopedEnvironment(run.environment, scope),
    runId: run.runId,
    ...hooks,
  });
}
