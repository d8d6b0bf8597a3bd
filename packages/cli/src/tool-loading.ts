/**
 * The tools a command offers to scripts: the built-in ones, those of `--tools` modules, and those
 * of MCP servers (`--mcp`, `mcpServers`), checked as one set before any backend starts. MCP
 * servers are started (or reached) here and stay connected until `close()`; `@codecall/mcp` and its
 * SDK are loaded only when a server is configured, so a plain run does not pay for them.
 */
import { checkToolSet, CodecallError, errorMessage, type ModuleImporter, type ToolDefinition } from "@codecall/core";
import { stripAnsi } from "@codecall/core/plugin-kit";
import { builtinTools } from "@codecall/tools";
import type { connectMcpServer } from "@codecall/mcp";
import { requireApproval } from "./approval-mode.js";
import { assertKnownToolNames } from "./known-tool-names.js";
import { UsageError } from "./exit-codes.js";
import type { McpServerEntry } from "./mcp-server-config.js";
import { loadToolModule } from "./module-loading.js";
import type { ToolsConfig } from "./run-config.js";

type Client = Awaited<ReturnType<typeof connectMcpServer>>;

/** The tool set, and what it holds open. */
export interface LoadedTools {
  tools: ToolDefinition[];
  /** Closes the MCP servers' clients (a stdio server's process ends with it); bounded, never throws. A property: callers take it apart. */
  close: () => Promise<void>;
}

/** How long closing the MCP clients may take before the CLI goes on without waiting. */
const CLOSE_TIMEOUT_MS = 10_000;

export async function loadTools(
  config: ToolsConfig,
  io: { cwd: string; stderr: NodeJS.WritableStream },
  importModule: ModuleImporter,
): Promise<LoadedTools> {
  const tools: ToolDefinition[] = config.builtinTools ? [...builtinTools] : [];
  for (const specifier of config.toolModules) tools.push(...(await loadToolModule(specifier, io.cwd, importModule)));
  const clients: Client[] = [];
  const close = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const closing = Promise.allSettled(clients.map((client) => client.close()));
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  };
  try {
    if (config.mcpServers.length > 0) tools.push(...(await loadMcpTools(config.mcpServers, tools, clients, io)));
    // `--require-approval` and `--allow-tools` may name any of them, an MCP server's tools included.
    const offered = requireApproval(tools, config.requireApproval);
    assertKnownToolNames("--allow-tools", offered, config.allowTools ?? []);
    // Refused here, before a backend starts: a name Python cannot import or a schema that cannot be
    // enforced is a mistake in the tools module, not something a run can report.
    checkToolSet(offered);
    return { tools: offered, close };
  } catch (error) {
    await close();
    if (CodecallError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}

/** Connects to each server in turn and maps its tools, clear of the names taken so far. */
async function loadMcpTools(
  servers: readonly McpServerEntry[],
  taken: readonly ToolDefinition[],
  clients: Client[],
  io: { stderr: NodeJS.WritableStream },
): Promise<ToolDefinition[]> {
  const { connectMcpServer, mcpTools } = await import("@codecall/mcp");
  const found: ToolDefinition[] = [];
  for (const server of servers) {
    let client: Client;
    try {
      client = await connectMcpServer(server.spec);
    } catch (error) {
      throw new UsageError(`MCP server ${server.label}: ${errorMessage(error)}`);
    }
    clients.push(client);
    const tools = await mcpTools(client, {
      ...(server.prefix ? { prefix: server.prefix } : {}),
      reserved: [...taken, ...found].map((tool) => tool.name),
      // The name and the reason quote the server: text, not commands to the terminal.
      onRefused: (refused) => io.stderr.write(stripAnsi(`codecall: MCP server ${server.label}: tool ${refused.name} left out: ${refused.reason}\n`)),
    }).catch((error: unknown) => {
      throw new UsageError(`MCP server ${server.label}: listing its tools failed: ${errorMessage(error)}`);
    });
    found.push(...tools);
  }
  return found;
}
