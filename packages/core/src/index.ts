/**
 * @codecall/core — programmatic tool calling: contracts, protocol, dispatcher, guest stubs and
 * `executeCode()`. Runtime-neutral (Node, Deno, Bun): no `node:*` imports, no `Buffer`.
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
  SpawnOptions,
  WriteFileOptions,
} from "./environment.js";
export type { GuestLanguage, RunContext, Transport, TransportSession } from "./transport.js";
export { defineTool, type ToolContext, type ToolDefinition } from "./tool.js";
export type { JSONSchema, JSONSchemaTypeName } from "./schema/json-schema.js";
export { validateAgainstSchema } from "./schema/validate.js";
export { CodecallError, errorMessage, type CodecallErrorCode, type CodecallErrorOptions } from "./errors.js";

export {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  parseRequest,
  PROTOCOL_VERSION,
  rpcError,
  RpcErrorCode,
  RpcMethod,
  rpcResult,
  sniffRequestId,
  type ParsedFrame,
  type RpcErrorObject,
  type RpcFailure,
  type RpcId,
  type RpcRequest,
  type RpcResponse,
  type RpcSuccess,
} from "./protocol/messages.js";
export { FrameDecoder, type DecodedFrame } from "./protocol/frame-decoder.js";
export { DEFAULT_MAX_JSON_DEPTH, measureJson, type JsonMeasure } from "./protocol/json-measure.js";
export { CallFlow, DEFAULT_MAX_PENDING_ANSWER_BYTES, DEFAULT_MAX_RUNNING_CALLS, type CallFlowOptions } from "./protocol/call-flow.js";
export {
  DEFAULT_MAX_TOOL_CALLS,
  RpcConnection,
  RpcDispatcher,
  type ConnectionOptions,
  type RpcDispatcherOptions,
  type ToolCallEvent,
} from "./rpc/dispatcher.js";
export { constantTimeEqual } from "./rpc/constant-time.js";

export { PYTHON_SOCKET_CLIENT } from "./guest/socket-client.js";
export { DEFAULT_MODULE_NAME, describePythonSignatures, generatePythonModule, type PythonModuleOptions } from "./guest/python-stub.js";
export { pythonGuestFiles, type GuestFile, type PythonGuestOptions } from "./guest/python-guest.js";
export { assertToolName, isPythonIdentifier, TOOL_NAME_RULE } from "./guest/python-names.js";
export { checkToolSet } from "./tool-set.js";

export { executeCode, selectTools, type ExecuteCodeOptions } from "./execute/execute-code.js";
export { openTransport, pickTransport, supportingTransports, type OpenedTransport } from "./execute/open-transport.js";
export { DEFAULT_LIMITS, MAX_DURATION_MS, resolveLimits, type ExecutionLimits } from "./execute/limits.js";
export { MAX_TIMER_DELAY_MS, setLongTimeout, type LongTimeout, type LongTimeoutOptions } from "./timers/long-timeout.js";
export { isCommandNotFound, missingInterpreterMessage, type ExecuteCodeResult, type ExecuteCodeStatus } from "./execute/result.js";
export {
  scrubEnv,
  looksSecret,
  SAFE_ENV_NAMES,
  SAFE_ENV_PREFIXES,
  SECRET_NAME_MARKERS,
  type EnvPolicy,
  type ScrubbedEnv,
} from "./execute/env-policy.js";
export { readHostEnv } from "./execute/host-env.js";
export { createCapture, OutputCapture, type ByteCapture, type CapturedOutput, type OutputCaptureOptions } from "./execute/output-capture.js";
export { ScopedEnvironment, type RunScope } from "./execute/scoped-environment.js";
export { collectProcess, drainStream, toExecResult, writeStdin, type CollectedProcess, type CollectOptions } from "./process/collect.js";

export { createCodeTool, describeCodeTool, type CodeTool, type CodeToolArgs, type CodeToolOptions } from "./code-tool.js";
export {
  AUTO_TRANSPORT_ORDER,
  BACKEND_PACKAGES,
  resolveEnvironment,
  resolveTransports,
  TRANSPORT_PACKAGES,
  type EnvironmentSpec,
  type ModuleImporter,
  type ResolveOptions,
  type TransportSpec,
} from "./resolver.js";

export { describeValue, type DescribeOptions } from "./text/describe-value.js";
export { assertEnvName, shellExports, shellQuote } from "./text/shell-quote.js";
export { OptionReader } from "./options/option-reader.js";
export { stripAnsi } from "./text/ansi.js";
export { maskSecret, redactSecrets, type RedactOptions } from "./text/redact.js";
export { StreamingRedactor, type StreamingRedactorOptions } from "./text/streaming-redactor.js";
export { newRunId, newRunToken } from "./ids.js";
export {
  isMissingCwdFailure,
  remoteCommand,
  remoteKillCommand,
  TREE_TAG_VARIABLE,
  WRAPPER_FAILURE_EXIT_CODE,
  type RemoteCommand,
  type RemoteCommandOptions,
} from "./remote/remote-command.js";
export {
  RemoteExecutor,
  RemoteProcess,
  type ExecChannel,
  type ExecRequest,
  type RemoteExecutorOptions,
  type StartExec,
} from "./remote/remote-executor.js";
export { ExecEnvironment, type ExecEnvironmentOptions, type NativeFiles } from "./remote/exec-environment.js";
export { checkMaxBytes, fileTooLarge, readBounded, type BoundedReadOptions, type ReadAt } from "./files/bounded-read.js";
