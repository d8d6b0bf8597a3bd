/**
 * JSON-RPC 2.0's answer to a message the server could not read: a line that is not JSON is a
 * Parse error (-32700), JSON that is not a JSON-RPC message (a list, a request without a method,
 * an id that is an object) an Invalid Request (-32600); the id is null, as none could be read.
 * The SDK's stdio transport drops such a line without a word, so a client that sent one would wait
 * for an answer that never comes.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC 2.0: the text is not JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC 2.0: the JSON is not a valid request. */
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error answer with a null id (the SDK's types allow only a missing one, hence the cast). */
export function errorWithoutId(code: number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id: null, error: { code, message } } as unknown as JSONRPCMessage;
}

/**
 * The answer to the error the SDK's stdio transport reports for a line it could not read (a
 * SyntaxError from JSON.parse, a ZodError from the message schema); undefined for any other error
 * (a failed write, a closed stream), which no message caused.
 */
export function unreadableMessageAnswer(error: unknown): JSONRPCMessage | undefined {
  if (error instanceof SyntaxError) return errorWithoutId(PARSE_ERROR, `Parse error: the line is not JSON (${error.message})`);
  if (error instanceof Error && error.name === "ZodError") {
    return errorWithoutId(
      INVALID_REQUEST,
      'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (an object with jsonrpc "2.0", a method, and a string or number id for a request)',
    );
  }
  return undefined;
}
