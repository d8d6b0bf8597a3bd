/**
 * Reading one line of a stdio connection as a JSON-RPC message, and JSON-RPC 2.0's answer to a
 * line that is not one: text that is not JSON is a Parse error (-32700), JSON that is not a
 * JSON-RPC message (a list, a request without a method, an id that is an object, params of the
 * wrong shape) an Invalid Request (-32600), and so is a line over the size limit. The answer
 * carries the request's id whenever it can be read, so the client's pending request fails with
 * the reason instead of waiting for ever; else the id is null, as JSON-RPC asks.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC 2.0: the text is not JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC 2.0: the JSON is not a valid request. */
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error answer with a null id (the SDK's types allow only a missing one, hence the cast). */
export function errorWithoutId(code: number, message: string): JSONRPCMessage {
  return errorAnswer(null, code, message);
}

/** The message read, or the error answer its text gets instead. */
export type MessageReading = { message: JSONRPCMessage } | { answer: JSONRPCMessage };

/** Reads one line (without its newline) as a JSON-RPC message. */
export function readMessageLine(line: string): MessageReading {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { answer: errorWithoutId(PARSE_ERROR, `Parse error: the line is not JSON (${(error as Error).message})`) };
  }
  return readMessage(value);
}

/** Reads parsed JSON as a JSON-RPC message; one that is not gets Invalid Request, with its id when it has a usable one. */
export function readMessage(value: unknown): MessageReading {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  return {
    answer: errorAnswer(
      requestIdOf(value),
      INVALID_REQUEST,
      'Invalid Request: the JSON is not a valid JSON-RPC 2.0 message (an object with jsonrpc "2.0", a method, params of its shape, and a string or number id for a request)',
    ),
  };
}

/**
 * The answer to a line longer than `maxBytes`, of which only its first and last bytes were kept.
 * Clients write a request's id before its method (`{"jsonrpc":"2.0","id":7,"method":...`) or,
 * method first, as its last member (the TypeScript SDK: `{"method":...,"jsonrpc":"2.0","id":7}`);
 * both shapes are read. Anything else (a response of the client's, an id not found) gets id null.
 */
export function oversizedLineAnswer(head: string, tail: string, maxBytes: number): JSONRPCMessage {
  const id = idValue(LEADING_ID.exec(head)?.[1]) ?? (METHOD_FIRST.test(head) ? idValue(TRAILING_ID.exec(tail)?.[1]) : undefined);
  return errorAnswer(
    id ?? null,
    INVALID_REQUEST,
    `Invalid Request: the message is over ${maxBytes} bytes, the server's limit (maxMessageBytes); it was not read`,
  );
}

/** How many bytes of an oversized line's start and end are kept to find its id. */
export const ID_SEARCH_BYTES = 256;

function errorAnswer(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** The id of what looks like a request (an object with a method), when it is a string or a number. */
function requestIdOf(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { method, id } = value as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return null;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

const ID_VALUE = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`;
/** `{"id":7,"method":…` or `{"jsonrpc":"2.0","id":7,"method":…` at the start of the top-level object. */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*,\s*"method"\s*:`);
/** A top-level object whose first member is its method: a request or a notification. */
const METHOD_FIRST = /^\s*\{\s*"method"\s*:/;
/** `"id":…}` closing the line: the last member of the top-level object (a nested one would be followed by more `}`). */
const TRAILING_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

function idValue(text: string | undefined): RequestId | undefined {
  if (text === undefined) return undefined;
  try {
    const id = JSON.parse(text) as unknown;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}
