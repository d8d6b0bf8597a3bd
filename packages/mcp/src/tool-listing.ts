/**
 * Reading a server's `tools/list`, every page, so that one malformed tool costs only itself. The
 * SDK's `listTools()` checks a whole page against the MCP schema: a single tool whose input schema
 * is not `{"type": "object", ...}` (MCP requires it) fails the page with a bare validation error
 * that names no tool, and the server's good tools are lost with it. Such a page is read again as
 * plain data and checked tool by tool: the good ones are kept, the bad one is reported with why.
 */
import { describeStandardIssues } from "@codecall/core/plugin-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PaginatedResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JSONSchema } from "@codecall/core";

/** One tool as `tools/list` describes it (the fields read here). */
export interface McpToolListing {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JSONSchema;
  outputSchema?: JSONSchema;
}

/** A listed tool, or one whose listing is not what MCP requires (`problem` says how). */
export type ListedTool = { listing: McpToolListing; problem?: undefined } | { listing: { name: string }; problem: string };

/** Bound on `tools/list` pages: a server that keeps handing out cursors must not loop forever. */
const MAX_LIST_PAGES = 1_000;

/** Every page of `tools/list`. */
export async function listAllTools(client: Client): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const params = cursor === undefined ? {} : { cursor };
    const listed = await listPage(client, params);
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`tools/list handed out the cursor ${JSON.stringify(cursor)} twice; stopped listing`);
    seen.add(cursor);
  }
  throw new Error(`tools/list still had more pages after ${MAX_LIST_PAGES}; stopped listing`);
}

async function listPage(client: Client, params: { cursor?: string }): Promise<{ tools: ListedTool[]; nextCursor?: string | undefined }> {
  try {
    // The SDK's own call first: it also remembers the tools' output schemas, to check results.
    const listed = await client.listTools(params);
    return { tools: listed.tools.map((listing) => ({ listing: listing as McpToolListing })), nextCursor: listed.nextCursor };
  } catch (error) {
    // Only an answer that came but did not parse (a validation error carries its issues) is read
    // again: a dead server or a timeout fails the listing as it is.
    if (!hasIssues(error)) throw error;
    const loose = await client.request({ method: "tools/list", params }, PaginatedResultSchema);
    const raw: unknown = (loose as { tools?: unknown }).tools;
    if (!Array.isArray(raw)) throw error;
    return { tools: raw.map(checkListing), nextCursor: loose.nextCursor };
  }
}

function checkListing(raw: unknown): ListedTool {
  const parsed = ToolSchema.safeParse(raw);
  if (parsed.success) return { listing: parsed.data as McpToolListing };
  const name: unknown = (raw as { name?: unknown } | null)?.name;
  return {
    listing: { name: typeof name === "string" ? name : String(name) },
    problem: `its listing is not what MCP requires: ${describeStandardIssues(parsed.error.issues).join("; ")}`,
  };
}

function hasIssues(error: unknown): boolean {
  return typeof error === "object" && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}
