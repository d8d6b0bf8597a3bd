// codecall as an MCP server: execute_code, with one host tool, over stdio. An MCP client starts
// this file and speaks on its stdin/stdout; a desktop app or an IDE would list it as
//
//   { "mcpServers": { "codecall": { "command": "node", "args": ["/path/to/examples/mcp/serve.mjs"] } } }
//
// (The CLI does the same without code: `codecall mcp serve --tools ./my-tools.mjs`.)
import { createEnvironment } from "@codecall/backend-local";
import { createCodeTool, defineTool } from "@codecall/core";
import { serveStdio } from "@codecall/mcp";
import { createTransport } from "@codecall/transport-uds";

const weather = defineTool({
  name: "weather",
  description: "Today's weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  returns: { type: "object", properties: { city: { type: "string" }, temp_c: { type: "number" } } },
  execute: async ({ city }) => ({ city, temp_c: { Oslo: 4, Lisbon: 19, Cairo: 31 }[city] ?? 15 }),
});

const environment = createEnvironment();
const serving = await serveStdio(createCodeTool({ environment, transport: createTransport(), tools: [weather] }), {
  onResult: (result) => console.error(`execute_code: ${result.status} (${result.toolCallsMade} tool calls)`),
});
await serving.closed;
await environment.close();
