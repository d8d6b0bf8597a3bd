/**
 * @codecall/core/protocol — the wire between a guest script and the host: JSON-RPC messages, the
 * NDJSON frame decoder, the dispatcher that answers frames, the flow control of calls on one
 * connection, and the guest side (the Python socket client and the stub generator). For
 * transport authors and for tools that speak the protocol.
 */
export {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  parseRequest,
  PROTOCOL_VERSION,
  rpcError,
  RpcErrorCode,
  RpcMethod,
  rpcResult,
  type ParsedFrame,
  type RpcErrorObject,
  type RpcFailure,
  type RpcId,
  type RpcRequest,
  type RpcResponse,
  type RpcSuccess,
} from "./protocol/messages.js";
export { FrameDecoder, type DecodedFrame } from "./protocol/frame-decoder.js";
export { DEFAULT_MAX_JSON_DEPTH } from "./protocol/json-measure.js";
export { CallFlow, DEFAULT_MAX_PENDING_ANSWER_BYTES, DEFAULT_MAX_RUNNING_CALLS, type CallFlowOptions } from "./protocol/call-flow.js";
export { ConnectionBudget, DEFAULT_MAX_CONNECTIONS, UNFINISHED_FRAMES_PER_RUN, type ByteBudget } from "./protocol/connection-budget.js";
export { MIN_REFUSAL_BYTES, REFUSED_FRAMES_PER_RUN, RefusalBudget } from "./rpc/refusal-budget.js";
export {
  DEFAULT_MAX_TOOL_CALLS,
  RpcConnection,
  RpcDispatcher,
  type ConnectionOptions,
  type RpcDispatcherOptions,
  type ToolCallEvent,
} from "./rpc/dispatcher.js";
export type { ToolRunEvent } from "./events.js";
export { newRunToken } from "./ids.js";

export { PYTHON_SOCKET_CLIENT } from "./guest/socket-client.js";
export { DEFAULT_MODULE_NAME, describePythonSignatures, generatePythonModule, type PythonModuleOptions } from "./guest/python-stub.js";
export { pythonGuestFiles, type GuestFile, type PythonGuestOptions } from "./guest/python-guest.js";
export { isPythonIdentifier, TOOL_NAME_RULE } from "./guest/python-names.js";
