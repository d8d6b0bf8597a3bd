/**
 * `mcpTools(client)`: an MCP server's tools as codecall tools, so a script calls them like any
 * other (`from codecall import github_get_issue`). Every page of `tools/list` is read; names are
 * mapped to importable Python names by core's `pythonToolNames` rule; input schemas are passed
 * through as the tools' parameters (arguments are validated by codecall before the server sees
 * them) and output schemas become the stub's documented `returns`.
 */
import { checkToolSet, DEFAULT_LIMITS, errorMessage, pythonToolNames, type ToolDefinition } from "@codecall/core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { listAllTools, type McpToolListing } from "./tool-listing.js";
import { McpToolError, scriptValue, type McpCallResult } from "./tool-result.js";

export type { McpToolListing } from "./tool-listing.js";

/** A server tool that cannot be offered to a script, and why (see `onRefused`). */
export interface RefusedMcpTool {
  /** The tool's name on the server. */
  name: string;
  /** The Python name it would have had. */
  pythonName: string;
  /** Why codecall refuses it (its listing is not what MCP requires, its input schema cannot be enforced, two parameters map to one Python name...). */
  reason: string;
}

export interface McpToolsOptions {
  /** Joined in front of every name with `_` (`github` + `get-issue` → `github_get_issue`). */
  prefix?: string;
  /** Names other tools of the run already use (built-ins, other servers): no MCP tool is mapped onto one. */
  reserved?: Iterable<string>;
  /**
   * Called for each tool codecall cannot offer, which is then left out. Without it, such a tool
   * fails the whole call with an error naming it: pass a handler to accept a partial set.
   */
  onRefused?: (refused: RefusedMcpTool) => void;
  /**
   * How long one call may wait for the server's answer, in ms; each progress notification the
   * server sends starts it again. Default: the default script time limit (300 s). The run's own
   * time limit and interruption cancel a call in any case.
   */
  timeoutMs?: number;
}

/** A codecall tool backed by an MCP server's tool. */
export interface McpToolDefinition extends ToolDefinition<Record<string, unknown>, unknown> {
  /** The tool's name on the server (what `name` was mapped from). */
  readonly mcpName: string;
}

/**
 * The tools of the server `client` is connected to, ready for `executeCode({ tools })`. A tool
 * that codecall cannot offer is reported to `onRefused` and left out (or, without `onRefused`,
 * fails the call with an error naming the tool and why).
 */
export async function mcpTools(client: Client, options: McpToolsOptions = {}): Promise<McpToolDefinition[]> {
  const listed = await listAllTools(client);
  const names = pythonToolNames(
    listed.map((tool) => tool.listing.name),
    { ...(options.prefix ? { prefix: options.prefix } : {}), ...(options.reserved ? { reserved: options.reserved } : {}) },
  );
  const server = client.getServerVersion()?.name ?? "the MCP server";
  const tools: McpToolDefinition[] = [];
  const refuse = (refused: RefusedMcpTool, cause?: unknown) => {
    if (!options.onRefused) {
      throw new Error(`${server}: tool ${refused.name} cannot be offered to a script: ${refused.reason} (pass onRefused to leave it out instead)`, {
        cause,
      });
    }
    options.onRefused(refused);
  };
  listed.forEach(({ listing, problem }, index) => {
    const pythonName = names[index]!;
    if (problem !== undefined) return refuse({ name: listing.name, pythonName, reason: problem });
    const tool = toCodecallTool(client, listing, pythonName, server, options.timeoutMs ?? DEFAULT_LIMITS.timeoutMs);
    try {
      checkToolSet([tool]);
    } catch (error) {
      return refuse({ name: listing.name, pythonName, reason: errorMessage(error) }, error);
    }
    tools.push(tool);
  });
  return tools;
}

function toCodecallTool(client: Client, listing: McpToolListing, pythonName: string, server: string, timeoutMs: number): McpToolDefinition {
  const description = listing.description?.trim() || listing.title?.trim() || `The ${listing.name} tool of ${server}.`;
  return {
    name: pythonName,
    mcpName: listing.name,
    description,
    parameters: listing.inputSchema,
    ...(listing.outputSchema ? { returns: listing.outputSchema } : {}),
    async execute(args, context) {
      let result: McpCallResult;
      try {
        result = await client.callTool({ name: listing.name, arguments: args }, undefined, {
          signal: context.signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
        });
      } catch (error) {
        // A dead server, a closed connection, a timeout, a protocol error: the script sees which
        // tool of which server failed and how, as a ToolError.
        throw new McpToolError(`MCP server ${server}: ${errorMessage(error)}`);
      }
      return scriptValue(listing.name, result);
    },
  };
}
