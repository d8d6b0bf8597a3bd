// An MCP client (the official SDK's Client) that starts serve.mjs and uses its execute_code: the
// model's side of the exchange, without a model. It lists the tool, runs a script with progress,
// and prints what came back.
//
//   node examples/mcp/client.mjs
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const client = new Client({ name: "example-client", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL("./serve.mjs", import.meta.url))] }));
try {
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
  console.log(
    tools[0].description
      .split("\n")
      .find((line) => line.trim().startsWith("weather("))
      .trim(),
  );
  const code = `
from codecall import weather
warmest = max((weather(city) for city in ["Oslo", "Lisbon", "Cairo"]), key=lambda w: w["temp_c"])
print("warmest:", warmest["city"], warmest["temp_c"])
`;
  const progress = [];
  const result = await client.callTool({ name: "execute_code", arguments: { code } }, undefined, {
    onprogress: ({ message }) => progress.push(message),
  });
  process.stdout.write(result.content[0].text);
  console.log(`status=${result.structuredContent.status} toolCalls=${result.structuredContent.toolCallsMade} progress=${progress.length > 0}`);
} finally {
  await client.close();
}
