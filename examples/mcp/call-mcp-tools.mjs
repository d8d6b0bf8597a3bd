// Calling an MCP server's tools from a script: connect to the server (here started over stdio;
// `{ url }` reaches a Streamable HTTP one), turn its tools into codecall tools, run a script that
// fans out over them. Only what the script prints comes back.
//
//   node examples/mcp/call-mcp-tools.mjs
import { fileURLToPath } from "node:url";
import { createEnvironment } from "@codecall/backend-local";
import { executeCode } from "@codecall/core";
import { connectMcpServer, mcpTools } from "@codecall/mcp";
import { createTransport } from "@codecall/transport-uds";

const client = await connectMcpServer({ command: process.execPath, args: [fileURLToPath(new URL("./notes-server.mjs", import.meta.url))] });
const environment = createEnvironment();
try {
  // `search-notes` becomes notes_search_notes (see core's README for the naming rule).
  const tools = await mcpTools(client, { prefix: "notes" });
  const result = await executeCode({
    environment,
    transport: createTransport(),
    tools,
    code: `
from concurrent.futures import ThreadPoolExecutor
from codecall import ToolError, notes_get_note, notes_search_notes

ids = notes_search_notes("mcp")["ids"]          # structured content: a dict
with ThreadPoolExecutor() as pool:
    titles = list(pool.map(notes_get_note, ids))  # text content: a str
print(len(titles), "notes tagged mcp:", "; ".join(titles))
try:
    notes_get_note(42)
except ToolError as error:                        # isError: a ToolError with the server's message
    print("ToolError:", error)
`,
  });
  process.stdout.write(result.output);
  console.log(`status=${result.status} toolCalls=${result.toolCallsMade}`);
} finally {
  await client.close();
  await environment.close();
}
