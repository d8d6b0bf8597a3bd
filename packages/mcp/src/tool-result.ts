/**
 * What a script gets back from an MCP tool call. MCP answers with a list of content blocks and,
 * for tools that declare an output schema, `structuredContent` (a JSON object). The script gets the
 * most useful form: the structured content when there is one (a dict, as the stub's `returns`
 * documents), else the text when every block is text (one string, blocks joined by newlines), else
 * the blocks themselves as MCP shapes them (`{"type": "image", "data": ..., "mimeType": ...}`). A
 * result flagged `isError` becomes an error whose message is the server's text, so the script sees
 * a `ToolError` saying what the server said.
 */

/** The parts of a `tools/call` result this module reads (the SDK's `CallToolResult`, loosely typed). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** The whole result of a server on MCP's first protocol version (2024-10-07). */
  toolResult?: unknown;
}

/** A tool result flagged `isError`: the server's own message, as the script's `ToolError` shows it. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpToolError";
  }
}

/** How long an error message from a server may be before it is cut (the dispatcher clips it again). */
const MAX_ERROR_TEXT = 4_000;

/** The value a script receives for `result`; throws {@link McpToolError} for an `isError` result. */
export function scriptValue(toolName: string, result: McpCallResult): unknown {
  const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  if (result.isError === true) {
    const text = textOf(blocks) ?? (result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent));
    const message = text.trim() === "" ? `${toolName} failed (the server gave no message)` : text.trim();
    throw new McpToolError(message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT)}…` : message);
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  if (result.content === undefined && result.toolResult !== undefined) return result.toolResult;
  const text = textOf(blocks);
  if (text !== undefined) return text;
  return blocks;
}

/** The blocks' text joined by newlines when every block is text; undefined otherwise ("" for no blocks). */
function textOf(blocks: readonly unknown[]): string | undefined {
  const texts: string[] = [];
  for (const block of blocks) {
    if (typeof block !== "object" || block === null) return undefined;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== "text" || typeof text !== "string") return undefined;
    texts.push(text);
  }
  return texts.join("\n");
}
