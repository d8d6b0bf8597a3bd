/**
 * @codecall/core — what an embedder uses: the Environment and Transport contracts, errors,
 * `executeCode()`, `createCodeTool()`, `defineTool()`, the env policy and the resolver.
 * Runtime-neutral (Node, Deno, Bun): no `node:*` imports, no `Buffer`.
 *
 * Plugin authors find the wire protocol in `@codecall/core/protocol` and the helpers for writing a
 * backend or transport in `@codecall/core/backend-kit`.
 */
export type {
  CommandOptions,
  Environment,
  EnvironmentCapabilities,
  EnvironmentProcess,
  ExecOptions,
  ExecResult,
  KillOptions,
  ProcessExit,
  ReadFileOptions,
  SocketConnection,
  SocketListener,
  SpawnOptions,
  TreeHeldCommand,
  WriteFileOptions,
} from "./environment.js";
export type { GuestLanguage, RunContext, Transport, TransportSession } from "./transport.js";
export { ENVIRONMENT_SPECIFICATION_VERSION, TRANSPORT_SPECIFICATION_VERSION } from "./specification.js";
export { CodecallError, errorMessage, type CodecallErrorCode, type CodecallErrorOptions } from "./errors.js";

export type { ToolContext, ToolDefinition } from "./tool.js";
export { defineTool, type ToolArguments, type ToolInput, type ToolParameters, type ToolSpec } from "./define-tool.js";
export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ApprovalDecision,
  type ApprovalDecisionType,
  type ApprovalHandler,
  type ApprovalRequest,
  type NeedsApproval,
  type NeedsApprovalContext,
} from "./approval.js";
export type { JSONSchema, JSONSchemaTypeName } from "./schema/json-schema.js";
export type { JSONSchemaType } from "./schema/json-schema-type.js";
export type { StandardJSONSchemaV1, StandardSchemaV1 } from "./schema/standard-schema.js";
export { checkToolSet } from "./tool-set.js";
export { pythonToolName, pythonToolNames, type PythonToolNameOptions } from "./guest/python-tool-names.js";
export { DEFAULT_MODULE_NAME, describePythonSignatures, generatePythonModule, type PythonModuleOptions } from "./guest/python-stub.js";

export { executeCode } from "./execute/execute-code.js";
export type { ExecuteCodeOptions } from "./execute/execute-options.js";
export { startExecution, type Execution } from "./execute/start-execution.js";
export { createCodeSession } from "./session/code-session.js";
export type { CodeSession, CodeSessionOptions, CodeSessionResult, CodeSessionRunOptions, CodeSessionState } from "./session/session-options.js";
export type {
  ApprovalDecidedBy,
  ApprovalDecidedEvent,
  ApprovalRequestedEvent,
  OutputDroppedEvent,
  RunEvent,
  RunFinishedEvent,
  RunOutputEvent,
  RunStartedEvent,
  ToolCallEndEvent,
  ToolCallOutcome,
  ToolCallStartEvent,
  ToolRunEvent,
} from "./events.js";
export type { SpanAttributeValue, TelemetryOptions, TelemetrySpan, TelemetryTracer } from "./telemetry/open-telemetry.js";
export { DEFAULT_LIMITS, MAX_DURATION_MS, type ExecutionLimits } from "./execute/limits.js";
export type { ExecuteCodeResult, ExecuteCodeStatus } from "./execute/result.js";
export type { ToolCallEvent } from "./rpc/dispatcher.js";
export { scrubEnv, SAFE_ENV_NAMES, SAFE_ENV_PREFIXES, SECRET_NAME_MARKERS, type EnvPolicy, type ScrubbedEnv } from "./execute/env-policy.js";
export { readHostEnv } from "./execute/host-env.js";
export { redactSecrets, type RedactOptions } from "./text/redact.js";
export { describeValue, type DescribeOptions } from "./text/describe-value.js";
export { setDebugNamespaces, setDebugSink, type DebugSink } from "./debug/debug-log.js";
export type { DebugNamespace } from "./debug/debug-namespaces.js";

export {
  createCodeTool,
  describeCodeTool,
  type CodeTool,
  type CodeToolArgs,
  type CodeToolCallContext,
  type CodeToolOptions,
  type CodeToolResult,
  type DescribeCodeToolOptions,
} from "./code-tool.js";
export {
  createCodeSessionPool,
  DEFAULT_CONVERSATION_KEY,
  type CodeSessionPool,
  type CodeToolSessionOptions,
} from "./session-pool/code-tool-sessions.js";
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  SessionPool,
  type PoolableSession,
  type PooledUse,
  type SessionEndReason,
  type SessionPoolOptions,
} from "./session-pool/session-pool.js";
export {
  AUTO_TRANSPORT_ORDER,
  BACKEND_PACKAGES,
  loadBackend,
  resolveEnvironment,
  resolveTransports,
  TRANSPORT_PACKAGES,
  type BackendPlugin,
  type EnvironmentSpec,
  type ModuleImporter,
  type ResolveOptions,
  type ResolveTransportsOptions,
  type TransportSpec,
} from "./resolver.js";
