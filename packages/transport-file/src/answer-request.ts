/**
 * Turns one claimed request file into its response frame. A request file is the run token, a
 * newline, then the JSON-RPC frame exactly as other transports send it; every file gets exactly
 * one answer, an error for anything too large, unauthorised or malformed.
 */
import type { RunContext } from "@codecall/core";
import { encodeFrame, rpcError, RpcErrorCode } from "@codecall/core/protocol";
import type { PolledRequest } from "./poll-script.js";

/** Room for the token line on top of the frame limit. */
export const TOKEN_LINE_BYTES = 256;

/**
 * The response frame for `request`. Errors carry the file's id: the guest matches answers by file
 * name, so even a request whose frame cannot be parsed reaches the caller waiting for it.
 */
export async function answerRequest(request: PolledRequest, run: RunContext): Promise<string> {
  const fail = (code: number, message: string) => encodeFrame(rpcError(request.id, code, message));
  if (request.size > run.maxFrameBytes + TOKEN_LINE_BYTES) {
    return fail(RpcErrorCode.FrameTooLarge, `Request too large: ${request.size} bytes exceeds the ${run.maxFrameBytes}-byte frame limit`);
  }
  const newline = request.content.indexOf("\n");
  if (newline === -1) {
    return fail(RpcErrorCode.InvalidRequest, "Invalid request: a request file holds the run token, a newline, then the frame");
  }
  if (!run.dispatcher.checkToken(request.content.slice(0, newline))) {
    return fail(RpcErrorCode.Unauthorized, "Unauthorized: wrong or missing run token");
  }
  // The token was checked above, per request, so the connection needs no hello. One connection
  // per request: a `hello` inside a file cannot change how any other request is treated.
  const connection = run.dispatcher.createConnection({ authenticated: true });
  return connection.handleFrame(request.content.slice(newline + 1).replace(/\n$/, ""));
}
