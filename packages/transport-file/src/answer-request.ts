/**
 * Turns one claimed request file into its response frame. A request file is the run token, a
 * newline, then the JSON-RPC frame exactly as other transports send it; every file gets exactly
 * one answer, an error for anything too large, unauthorised or malformed.
 */
import type { RunContext } from "@codecall/core";
import { rpcError, RpcErrorCode } from "@codecall/core/protocol";
import type { PolledRequest } from "./poll-script.js";

/** Room for the token line on top of the frame limit. */
export const TOKEN_LINE_BYTES = 256;

/**
 * The response frame for `request`. Errors carry the file's id: the guest matches answers by file
 * name, so even a request whose frame cannot be parsed reaches the caller waiting for it. Refusals
 * count against the run's budget of refused requests, as on every transport.
 */
export async function answerRequest(request: PolledRequest, run: RunContext): Promise<string> {
  const fail = (code: number, message: string) => run.dispatcher.refuse(rpcError(request.id, code, message), request.size);
  if (request.size > run.maxFrameBytes + TOKEN_LINE_BYTES) {
    return fail(RpcErrorCode.FrameTooLarge, `Request too large: ${request.size} bytes exceeds the ${run.maxFrameBytes}-byte frame limit`);
  }
  // The host claims whatever is in requests/: a guest that writes a file there in place is read
  // as far as it got. Said plainly, with the rule, instead of an error that hides why.
  const notWhole = (code: number, kind: string, what: string) =>
    fail(
      code,
      `${kind}: request file ${request.id}.json is not a whole request (${what}); write each request in guest-tmp/ and rename it ` +
        `into requests/, so that the host never reads one half-written. A request file holds the run token, a newline, then the frame`,
    );
  const newline = request.content.indexOf("\n");
  if (newline === -1) return notWhole(RpcErrorCode.InvalidRequest, "Invalid request", "no newline after the run token");
  if (!run.dispatcher.checkToken(request.content.slice(0, newline))) {
    return fail(RpcErrorCode.Unauthorized, "Unauthorized: wrong or missing run token");
  }
  const frame = request.content.slice(newline + 1).replace(/\n$/, "");
  const text = frame.trim();
  if (text === "") return notWhole(RpcErrorCode.InvalidRequest, "Invalid request", "nothing after the run token line");
  // No JSON object ends otherwise: a parse error, which is also what a frame cut short is.
  if (text.startsWith("{") && !text.endsWith("}")) {
    return notWhole(RpcErrorCode.ParseError, "Parse error", "its frame stops before the end of its JSON object");
  }
  // The token was checked above, per request, so the connection needs no hello. One connection
  // per request: a `hello` inside a file cannot change how any other request is treated.
  const connection = run.dispatcher.createConnection({ authenticated: true });
  return connection.handleFrame(frame);
}
