// The MCP examples, run as a user runs them.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const run = promisify(execFile);
const example = (name) => fileURLToPath(new URL(`../mcp/${name}`, import.meta.url));

it("call-mcp-tools.mjs: a script calls an MCP server's tools", async () => {
  const { stdout } = await run(process.execPath, [example("call-mcp-tools.mjs")], { timeout: 60_000 });
  expect(stdout).toBe(
    "2 notes tagged mcp: Ship the MCP adapter; Serve execute_code over HTTP\nToolError: notes_get_note: no note 42\nstatus=success toolCalls=4\n",
  );
});

it("client.mjs: an MCP client uses codecall's execute_code from serve.mjs", async () => {
  const { stdout } = await run(process.execPath, [example("client.mjs")], { timeout: 60_000 });
  expect(stdout).toBe(
    [
      "tools: execute_code",
      'weather(city: str) -> dict: Today\'s weather in a city.  Returns {"city": str, "temp_c": float}',
      "warmest: Cairo 31",
      "status=success toolCalls=3 progress=true",
      "",
    ].join("\n"),
  );
});
