/**
 * Serving `execute_code` over stdio, as an MCP client that starts the server itself expects (a
 * desktop app's or an IDE's `mcpServers` entry with a `command`). Stdout carries the protocol and
 * nothing else; the client closing stdin, or a failed write to stdout (the client has gone), ends
 * the server, interrupting any run still going.
 */
import type { Readable, Writable } from "node:stream";
import type { CodeTool } from "@codecall/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createCodecallServer, type CodecallServerOptions } from "./code-server.js";
import { InFlightRuns } from "./in-flight-runs.js";
import { StdioLineTransport } from "./stdio-line-transport.js";

export interface StdioServeOptions extends CodecallServerOptions {
  /** Default: `process.stdin`. */
  stdin?: Readable;
  /** Default: `process.stdout`. Nothing else may write to it while the server runs. */
  stdout?: Writable;
  /**
   * Longest message (line) read, in bytes (default 4 MiB, as `serveHttp`'s `maxBodyBytes`). A
   * longer one is skipped, not buffered, and answered with an Invalid Request error.
   */
  maxMessageBytes?: number;
}

/** A server answering on stdio. */
export interface StdioServing {
  readonly server: McpServer;
  /** Resolves when the connection has closed (stdin ended, or `close()`) and every run has ended. */
  readonly closed: Promise<void>;
  /** Closes the connection (interrupting runs) and resolves once they have ended. */
  close(): Promise<void>;
}

export async function serveStdio(tool: CodeTool, options: StdioServeOptions = {}): Promise<StdioServing> {
  const runs = new InFlightRuns();
  const server = createCodecallServer(runs.track(tool), options);
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioLineTransport(stdin, options.stdout ?? process.stdout, {
    maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
  });
  let markClosed: () => void;
  const connectionClosed = new Promise<void>((resolve) => (markClosed = resolve));
  transport.onclose = () => markClosed();
  // The SDK's transport does not watch for the end of stdin: a client that has gone (or closed
  // its end to stop us) must still end the server.
  const onEnd = () => void server.close();
  stdin.once("end", onEnd);
  stdin.once("close", onEnd);
  await server.connect(transport);
  const closed = connectionClosed.then(async () => {
    stdin.off("end", onEnd);
    stdin.off("close", onEnd);
    await runs.settled();
  });
  return {
    server,
    closed,
    async close() {
      await server.close();
      await closed;
    },
  };
}
