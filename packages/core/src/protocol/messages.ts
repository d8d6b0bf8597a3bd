/**
 * The guest ⇄ host wire protocol: JSON-RPC 2.0, one JSON object per line (NDJSON). The same
 * message shapes travel over every transport.
 */

/** Version spoken in the `hello` handshake. */
export const PROTOCOL_VERSION = 1;

/** Default upper bound of one frame, in bytes (16 MiB). */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Methods a guest may call. */
export const RpcMethod = {
  /** First frame of a connection: `{ token, protocol }`. */
  Hello: "hello",
  /** `{ name, arguments }` → the tool's result. */
  ToolsCall: "tools/call",
} as const;

/** Error codes: the JSON-RPC standard ones, then codecall's (-32001 … -32099, server range). */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Unauthorized: -32001,
  ToolNotAvailable: -32002,
  ToolCallLimit: -32003,
  ToolFailed: -32004,
  Cancelled: -32005,
  FrameTooLarge: -32006,
  UnsupportedProtocol: -32007,
  /** A call that needed approval was denied (or not answered in time, or nobody could approve). */
  ApprovalDenied: -32008,
  /** The run's refused requests have taken their budget: every later request is refused unread. */
  RefusalLimit: -32009,
} as const;

export type RpcErrorCodeValue = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

/** A request id: JSON-RPC allows numbers and strings. */
export type RpcId = number | string;

export interface RpcRequest {
  jsonrpc: "2.0";
  id: RpcId;
  method: string;
  params?: unknown;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcSuccess {
  jsonrpc: "2.0";
  id: RpcId;
  result: unknown;
}

export interface RpcFailure {
  jsonrpc: "2.0";
  /** `null` when the request was too broken to read its id. */
  id: RpcId | null;
  error: RpcErrorObject;
}

export type RpcResponse = RpcSuccess | RpcFailure;

/** Builds a success response. `undefined` results travel as `null`. */
export function rpcResult(id: RpcId, result: unknown): RpcSuccess {
  return { jsonrpc: "2.0", id, result: result === undefined ? null : result };
}

/** Builds an error response. */
export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): RpcFailure {
  const error: RpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: "2.0", id, error };
}

const MAX_ID_LENGTH = 128;

function isValidId(id: unknown): id is RpcId {
  if (typeof id === "number") return Number.isSafeInteger(id);
  return typeof id === "string" && id.length > 0 && id.length <= MAX_ID_LENGTH;
}

/** Result of {@link parseRequest}: a request, or the error response to send back instead. */
export type ParsedFrame = { ok: true; request: RpcRequest } | { ok: false; response: RpcFailure };

/**
 * Parses one frame (a line without its newline). Never throws: anything that is not a well-formed
 * request comes back as the error response the host must send.
 */
export function parseRequest(line: string): ParsedFrame {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, response: rpcError(null, RpcErrorCode.ParseError, `Parse error: ${reason}`) };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return invalid(null, "a request must be a JSON object (batches are not supported)");
  }
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  const knownId = isValidId(id) ? id : null;
  if (jsonrpc !== "2.0") return invalid(knownId, 'a request must have "jsonrpc": "2.0"');
  if (knownId === null) {
    return invalid(null, `a request must have an "id": an integer or a string of 1-${MAX_ID_LENGTH} characters`);
  }
  if (typeof method !== "string" || method.length === 0) return invalid(knownId, 'a request must have a "method" string');
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return invalid(knownId, '"params" must be an object');
  }
  return { ok: true, request: { jsonrpc: "2.0", id: knownId, method, params } };
}

function invalid(id: RpcId | null, message: string): ParsedFrame {
  return { ok: false, response: rpcError(id, RpcErrorCode.InvalidRequest, `Invalid request: ${message}`) };
}

// The id must be followed by `,` or `}`: a bare `\d+` would read `1.5` or `12e3` as 1 or 12 and
// hand the error to whichever call owns that id.
const ID_SNIFF = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{1,128}")\s*[,}]/;

/**
 * Reads the id from the start of a frame too large to parse, so the caller that owns it gets its
 * error instead of waiting forever. Guest clients write `jsonrpc` and `id` first for this reason.
 */
export function sniffRequestId(framePrefix: string): RpcId | null {
  const match = ID_SNIFF.exec(framePrefix);
  if (!match?.[1]) return null;
  const raw = match[1];
  if (raw.startsWith('"')) return raw.slice(1, -1);
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Serialises a message as one NDJSON frame (JSON never contains a raw newline) of well-formed
 * Unicode: a lone surrogate becomes U+FFFD, as it would in any UTF-8 text. A JavaScript string cut
 * inside a surrogate pair (`text.slice(0, n)` through an emoji, a common tool bug) is otherwise
 * escaped as `\ud83d`, which guest decoders turn back into a lone surrogate: in Python a string
 * that `print`, `write` and `encode` then fail on with `UnicodeEncodeError`.
 */
export function encodeFrame(message: RpcResponse | RpcRequest): string {
  const json = JSON.stringify(message);
  // JSON.stringify escapes lone surrogates (and only those) as `\udXXX`, in lower case.
  return `${json.includes("\\ud") ? json.replace(LONE_SURROGATE_ESCAPE, "$1\\ufffd") : json}\n`;
}

/** A `\udXXX` escape (a lone surrogate, as JSON.stringify writes one) not itself behind an escaped backslash. */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;
