import { createEnvironment } from "@codecall/backend-local";
import { executeCode, generatePythonModule, type ToolDefinition } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, mcpTools, type McpServerSpec, type RefusedMcpTool } from "../src/index.js";
import { ISSUES_SERVER, ODD_SERVER, processAlive, startHttpFixture, stdioSpec, waitFor } from "./support.js";

const environment = createEnvironment();
afterAll(() => environment.close());

function run(code: string, tools: readonly ToolDefinition[]) {
  return executeCode({ code, environment, transport: createTransport(), tools, limits: { timeoutMs: 60_000 } });
}

const SCRIPT = `
from concurrent.futures import ThreadPoolExecutor
from codecall import ToolError, issues_get_issue, issues_add, issues_print, issues_logo
print(issues_get_issue(7))
print(issues_get_issue(8, repo="other")["repo"])
print(repr(issues_add(2, 3)))
print(repr(issues_print("x")))
print(issues_logo()[0]["mimeType"])
try:
    issues_get_issue(99)
except ToolError as error:
    print("ToolError:", error)
with ThreadPoolExecutor(8) as pool:
    print(sum(int(r) for r in pool.map(lambda n: issues_add(n, n), range(20))))
`;

const EXPECTED = [
  "{'number': 7, 'repo': 'codecall', 'title': 'Tracebacks name the run dir', 'state': 'open'}",
  "other",
  "'5'",
  "'printed x\\ntwice'",
  "image/png",
  "ToolError: issues_get_issue: issue 99 does not exist in codecall",
  "380",
  "",
].join("\n");

for (const [transport, start] of [
  ["stdio", async () => ({ spec: stdioSpec(ISSUES_SERVER) as McpServerSpec, stop: () => {} })],
  [
    "Streamable HTTP",
    async () => {
      const fixture = await startHttpFixture(ISSUES_SERVER);
      return { spec: { url: fixture.url } as McpServerSpec, stop: () => fixture.stop() };
    },
  ],
] as const) {
  describe(`mcpTools over ${transport}, against a real McpServer`, () => {
    let client: Client;
    let stop: () => void;
    beforeAll(async () => {
      const started = await start();
      stop = started.stop;
      client = await connectMcpServer(started.spec);
    });
    afterAll(async () => {
      await client?.close();
      stop?.();
    });

    it("maps names to Python, passes schemas through and documents the output schema", async () => {
      const tools = await mcpTools(client, { prefix: "issues" });
      expect(tools.map((tool) => [tool.name, tool.mcpName])).toEqual([
        ["issues_get_issue", "get-issue"],
        ["issues_add", "add"],
        ["issues_print", "print"],
        ["issues_logo", "logo"],
        ["issues_slow", "slow"],
        ["issues_die", "die"],
        ["issues_pid", "pid"],
      ]);
      const getIssue = tools[0]!;
      expect(getIssue.parameters).toMatchObject({ type: "object", properties: { number: { type: "integer" } }, required: ["number"] });
      expect(getIssue.returns).toMatchObject({ properties: { title: { type: "string" } } });
      const stub = generatePythonModule({ tools });
      expect(stub).toContain('def issues_get_issue(number: int, repo: str = "codecall") -> dict:');
      expect(stub).toMatch(/Returns:\n\s+\{"number": int, "title": str, "state": str, "repo": str\}/);
    });

    it("a script calls the tools: structured content as a dict, text as a string, isError as ToolError, concurrently", async () => {
      const result = await run(SCRIPT, await mcpTools(client, { prefix: "issues" }));
      expect(result.error).toBeUndefined();
      expect(result.output).toBe(EXPECTED);
      expect(result.toolCallsMade).toBe(26);
    });

    it("arguments are checked against the server's input schema before the server sees them", async () => {
      const result = await run(
        `from codecall import ToolError, issues_get_issue\ntry:\n    issues_get_issue("seven")\nexcept ToolError as e:\n    print(e)`,
        await mcpTools(client, { prefix: "issues" }),
      );
      expect(result.output).toMatch(/number.*integer/i);
    });
  });
}

describe("a server that dies in the middle of a call", () => {
  it("over stdio: the script gets a ToolError, the next call one too, and the run ends", async () => {
    const client = await connectMcpServer(stdioSpec(ISSUES_SERVER));
    try {
      const tools = await mcpTools(client);
      const result = await run(
        `from codecall import ToolError, die, add\nfor call in (die, lambda: add(1, 2)):\n    try:\n        call()\n    except ToolError as e:\n        print("ToolError:", e)`,
        tools,
      );
      expect(result.status).toBe("success");
      const lines = result.output.trim().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^ToolError: die: MCP server issues: .*Connection closed/);
      expect(lines[1]).toMatch(/^ToolError: add: MCP server issues: /);
    } finally {
      await client.close();
    }
  });

  it("over HTTP: the script gets a ToolError, not a hang", async () => {
    const fixture = await startHttpFixture(ISSUES_SERVER);
    const client = await connectMcpServer({ url: fixture.url });
    try {
      const result = await run(
        `from codecall import ToolError, die\ntry:\n    die()\nexcept ToolError as e:\n    print("ToolError:", e)`,
        await mcpTools(client),
      );
      expect(result.status).toBe("success");
      expect(result.output).toMatch(/^ToolError: die: MCP server issues: .*Connection closed/);
    } finally {
      await client.close();
      fixture.stop();
    }
  });
});

describe("what codecall cannot offer, and pagination", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcpServer(stdioSpec(ODD_SERVER));
  });
  afterAll(() => client?.close());

  it("reads every page of tools/list, keeps colliding names apart, and reports the tool it refuses", async () => {
    const refused: RefusedMcpTool[] = [];
    const tools = await mcpTools(client, { reserved: ["terminal"], onRefused: (tool) => refused.push(tool) });
    expect(tools.map((tool) => [tool.name, tool.mcpName])).toEqual([
      ["get_issue", "get-issue"],
      ["get_issue_2", "get_issue"],
      ["class_tool", "class"],
    ]);
    expect(refused).toEqual([
      { name: "remote-ref", pythonName: "remote_ref", reason: expect.stringMatching(/https:\/\/example\.com/) as string },
      // Beside a good tool on its page, which the SDK's listTools() would have lost with it.
      { name: "scalar", pythonName: "scalar", reason: `its listing is not what MCP requires: 'inputSchema.type' Invalid input: expected "object"` },
      { name: "typo", pythonName: "typo", reason: expect.stringMatching(/requires "querry", which it does not declare under properties/) as string },
    ]);
    const result = await run(
      `from codecall import get_issue, get_issue_2, class_tool\nprint(get_issue())\nprint(get_issue_2())\nprint(class_tool(3))`,
      tools,
    );
    expect(result.output).toBe('get-issue {}\nget_issue {}\nclass {"n":3}\n');
  });

  it("without onRefused, a refused tool fails the call with its name and the reason", async () => {
    await expect(mcpTools(client)).rejects.toThrow(/odd: tool remote-ref cannot be offered to a script: .*example\.com.*pass onRefused/);
  });
});

describe("closing", () => {
  it("closing the client ends a stdio server's process", async () => {
    const client = await connectMcpServer(stdioSpec(ISSUES_SERVER));
    expect((await mcpTools(client)).length).toBeGreaterThan(0);
    const answer = (await client.callTool({ name: "pid" })) as { content: { text: string }[] };
    const pid = Number(answer.content[0]!.text);
    expect(processAlive(pid)).toBe(true);
    await client.close();
    await waitFor(() => !processAlive(pid), `MCP server ${pid} gone`);
  });
});
