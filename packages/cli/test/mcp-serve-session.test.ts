// `codecall mcp serve --session` over stdio, driven by the real SDK Client: the connection's calls
// share one Python session (reset starts it afresh), and the flags' values are checked.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, runCli } from "./support.js";

describe("codecall mcp serve --session", () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "cli-session-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "serve", "--no-builtin-tools", "--session", "--session-idle", "600"],
        stderr: "pipe",
      }),
    );
  });

  afterAll(async () => {
    await client?.close();
  });

  const run = async (code: string, reset?: boolean) => {
    const result = await client.callTool({ name: "execute_code", arguments: { code, ...(reset ? { reset } : {}) } });
    return { text: (result.content as { text: string }[])[0]!.text, structured: result.structuredContent };
  };

  it("describes the session and keeps state between the connection's calls", async () => {
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toContain("The session ends after 10 minutes without a call");
    await run("total = 40");
    expect(await run("total += 2\nprint(total)")).toMatchObject({ text: "42\n", structured: { cell: 2, state: "kept" } });
    expect(await run("print('total' in globals())", true)).toMatchObject({ text: "False\n", structured: { state: "fresh" } });
  });

  it("refuses session flags without --session, and values it cannot use", async () => {
    expect((await runCli(["mcp", "serve", "--max-sessions", "3"])).stderr).toBe("codecall: --session-idle and --max-sessions go with --session\n");
    expect(await runCli(["mcp", "serve", "--session", "--max-sessions", "0"])).toMatchObject({
      code: 2,
      stderr: "codecall: --max-sessions wants a whole number of at least 1, got 0\n",
    });
    expect((await runCli(["mcp", "serve", "--session", "--session-idle", "soon"])).stderr).toContain(
      "--session-idle wants a number of seconds above 0",
    );
  });
});
