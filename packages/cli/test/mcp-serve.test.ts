// `codecall mcp serve` driven by the real SDK Client over stdio: the way a desktop app or an IDE
// starts it from its mcpServers entry.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, processAlive } from "./support.js";

const ISSUES_SERVER = path.resolve(import.meta.dirname, "../../mcp/test/fixtures/issues-server.mjs");

async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("codecall mcp serve over stdio", () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = "";
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "codecall-mcp-serve-"));
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "serve", "--no-builtin-tools", "--mcp", `${process.execPath} ${ISSUES_SERVER}`],
      cwd: scratch,
      stderr: "pipe",
    });
    transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("lists execute_code, whose description shows the MCP server's tools as Python functions", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["execute_code"]);
    expect(tools[0]!.description).toContain('get_issue(number: int, repo: str = "codecall") -> dict: Fetches one issue by number.');
    expect(tools[0]!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it("runs a script that calls the MCP server's tools, with progress, and logs the run on stderr", async () => {
    const messages: string[] = [];
    const result = await client.callTool(
      { name: "execute_code", arguments: { code: "from codecall import get_issue, add\nprint(get_issue(7)['title'])\nprint(add(1, 2))" } },
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? "") },
    );
    expect(result.content).toEqual([{ type: "text", text: "Tracebacks name the run dir\n3\n" }]);
    expect(result.structuredContent).toMatchObject({ status: "success", toolCallsMade: 2 });
    expect(messages.join("\n")).toContain("[calling get_issue]");
    await waitFor(() => stderr.includes("codecall: execute_code success (2 tool calls"), "the run's log line");
  });

  it("cancelling a long run interrupts the script and its process is gone", async () => {
    const pidFile = path.join(scratch, "pid");
    const code = `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write(f"{os.getpid()}\\n")\ntime.sleep(600)`;
    const controller = new AbortController();
    const call = client
      .callTool({ name: "execute_code", arguments: { code } }, undefined, { signal: controller.signal, timeout: 600_000 })
      .catch((e: unknown) => e);
    await waitFor(async () => /^\d+\n$/.test(await readFile(pidFile, "utf8").catch(() => "")), "the script's pid");
    const pid = Number(await readFile(pidFile, "utf8"));
    controller.abort("stop");
    await call;
    await waitFor(() => stderr.includes("codecall: execute_code interrupted"), "the interrupted run's log line");
    await waitFor(() => !processAlive(pid), `script ${pid} gone`);
  });

  it("closing the client (end of stdin) ends the server and the MCP server it started", async () => {
    const pidResult = await client.callTool({ name: "execute_code", arguments: { code: "from codecall import pid\nprint(pid())" } });
    const mcpPid = Number((pidResult.content as { text: string }[])[0]!.text.trim());
    const serverPid = transport.pid!;
    expect(processAlive(mcpPid)).toBe(true);
    await client.close();
    await waitFor(() => !processAlive(serverPid), "codecall mcp serve gone");
    await waitFor(() => !processAlive(mcpPid), "the MCP server it started gone");
  });
});
