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
  const newline = request.content.indexOf("\n");
  const frame = newline === -1 ? "" : request.content.slice(newline + 1).replace(/\n$/, "");
  const cut = newline === -1 ? "no newline after the run token" : cutShort(frame);
  if (cut !== undefined) {
    // The host claims whatever is in requests/: a guest that writes a file there in place is read
    // as far as it got. Said plainly, instead of a token or JSON parse error that hides why.
    return fail(
      RpcErrorCode.InvalidRequest,
      `Invalid request: request file ${request.id}.json is not a whole request (${cut}); write each request in guest-tmp/ and ` +
        `rename it into requests/, so that the host never reads one half-written. A request file holds the run token, a newline, then the frame`,
    );
  }
  if (!run.dispatcher.checkToken(request.content.slice(0, newline))) {
    return fail(RpcErrorCode.Unauthorized, "Unauthorized: wrong or missing run token");
  }
  // The token was checked above, per request, so the connection needs no hello. One connection
  // per request: a `hello` inside a file cannot change how any other request is treated.
  const connection = run.dispatcher.createConnection({ authenticated: true });
  return connection.handleFrame(frame);
}

/**
 * Why `frame` looks cut short (nothing, or a JSON object that does not end), or undefined when it
 * does not: other malformed frames get the protocol's own answer.
 */
function cutShort(frame: string): string | undefined {
  const text = frame.trim();
  if (text === "") return "nothing after the run token line";
  if (text.startsWith("{") && !text.endsWith("}")) return "its frame stops before the end of its JSON object";
  return undefined;
}
