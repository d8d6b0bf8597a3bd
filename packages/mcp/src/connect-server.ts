/**
 * Connecting to an MCP server described the way MCP clients' configs describe one (the common
 * `mcpServers` entry): a command to start with its arguments and environment (stdio), or the URL of
 * a Streamable HTTP endpoint.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { closeWhenServerGone } from "./http-liveness.js";
import { packageVersion } from "./package-info.js";

/** A server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServerSpec {
  command: string;
  args?: string[];
  /**
   * Variables set for the server, over the few the SDK passes on by default (HOME, LOGNAME, PATH,
   * SHELL, TERM, USER): the rest of this process's environment is not inherited.
   */
  env?: Record<string, string>;
  /** Working directory of the server process (default: this process's). */
  cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerSpec {
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

export interface ConnectOptions {
  /**
   * Where a stdio server's stderr goes: `inherit` (default: this process's stderr, where its
   * diagnostics belong), `ignore`, or `pipe` (read it from the transport).
   */
  stderr?: "inherit" | "ignore" | "pipe";
  /** Cancels connecting (and the `initialize` handshake). */
  signal?: AbortSignal;
}

/**
 * Starts (stdio) or reaches (HTTP) the server and completes MCP's handshake. The client is the
 * caller's to `close()`: for a stdio server that ends the process. An HTTP server that stops
 * answering in the middle of a call closes the client, so pending calls fail instead of waiting
 * for their timeout (see http-liveness.ts).
 */
export async function connectMcpServer(spec: McpServerSpec, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client({ name: "codecall", version: packageVersion() });
  const transport =
    "url" in spec
      ? new StreamableHTTPClientTransport(new URL(spec.url), spec.headers ? { requestInit: { headers: spec.headers } } : {})
      : new StdioClientTransport({
          command: spec.command,
          ...(spec.args ? { args: spec.args } : {}),
          ...(spec.env ? { env: spec.env } : {}),
          ...(spec.cwd ? { cwd: spec.cwd } : {}),
          stderr: options.stderr ?? "inherit",
        });
  try {
    await client.connect(transport, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`Could not connect to the MCP server ${describeSpec(spec)}: ${(error as Error).message}`, { cause: error });
  }
  if ("url" in spec) closeWhenServerGone(client);
  return client;
}

/** A server as a person would name it in a message: its URL, or its command line. */
export function describeSpec(spec: McpServerSpec): string {
  return "url" in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(" ");
}
