// A small MCP server (the official SDK's McpServer over stdio) with two tools, for the example of
// calling an MCP server's tools from a script. Any MCP server works the same way.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const notes = [
  { id: 1, title: "Ship the MCP adapter", tags: ["mcp", "release"] },
  { id: 2, title: "Write the CLI help", tags: ["cli"] },
  { id: 3, title: "Serve execute_code over HTTP", tags: ["mcp"] },
];

const server = new McpServer({ name: "notes", version: "1.0.0" });
server.registerTool(
  "search-notes",
  {
    description: "Finds notes with a tag.",
    inputSchema: { tag: z.string().describe("The tag to look for.") },
    outputSchema: { ids: z.array(z.number().int()) },
  },
  async ({ tag }) => {
    const ids = notes.filter((note) => note.tags.includes(tag)).map((note) => note.id);
    return { structuredContent: { ids }, content: [{ type: "text", text: JSON.stringify({ ids }) }] };
  },
);
server.registerTool("get-note", { description: "Reads one note.", inputSchema: { id: z.number().int() } }, async ({ id }) => {
  const note = notes.find((candidate) => candidate.id === id);
  if (!note) return { isError: true, content: [{ type: "text", text: `no note ${id}` }] };
  return { content: [{ type: "text", text: note.title }] };
});
await server.connect(new StdioServerTransport());
