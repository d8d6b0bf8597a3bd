/**
 * The dispatcher that serves one run's tool calls: the allow-listed tools, the run's token and
 * limits, and the environment as tools see it during the run (its scrubbed env and working
 * directory, see {@link ScopedEnvironment}).
 */
import { RpcDispatcher, type ToolCallEvent } from "../rpc/dispatcher.js";
import type { PreparedRun } from "./prepare-run.js";
import { ScopedEnvironment, type RunScope } from "./scoped-environment.js";

export function createRunDispatcher(run: PreparedRun, scope: RunScope, onToolCall: ((event: ToolCallEvent) => void) | undefined): RpcDispatcher {
  return new RpcDispatcher({
    tools: run.tools,
    token: run.token,
    maxToolCalls: run.limits.maxToolCalls,
    maxFrameBytes: run.limits.maxFrameBytes,
    maxJsonDepth: run.limits.maxJsonDepth,
    environment: new ScopedEnvironment(run.environment, scope),
    runId: run.runId,
    ...(onToolCall ? { onToolCall } : {}),
  });
}
