/**
 * A Streamable HTTP server that dies in the middle of a call leaves the SDK's client waiting: the
 * call's event stream breaks, the client reports "SSE stream disconnected" to `onerror`, and,
 * unless the server had made the stream resumable, nothing ever settles the call but its timeout.
 * On such a break this pings the server; when the ping fails too the server is gone, and closing
 * the client fails every pending call at once ("Connection closed"), so a script gets a ToolError
 * instead of waiting out its time limit. A server that answers the ping is alive: its calls go on.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** How long the ping after a broken stream may take before the server counts as gone. */
const PING_TIMEOUT_MS = 5_000;

export function closeWhenServerGone(client: Client): void {
  let checking = false;
  const previous = client.onerror;
  client.onerror = (error) => {
    previous?.(error);
    if (checking || !/SSE stream disconnected/.test(error.message)) return;
    checking = true;
    client.ping({ timeout: PING_TIMEOUT_MS }).then(
      () => (checking = false),
      () => void client.close().catch(() => {}),
    );
  };
}
