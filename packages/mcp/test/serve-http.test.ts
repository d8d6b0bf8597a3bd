import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment } from "@codecall/backend-local";
import { createCodeTool, defineTool, type ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXECUTE_CODE_ANNOTATIONS, serveHttp, type HttpServing } from "../src/index.js";
import { processAlive, waitFor } from "./support.js";

const environment = createEnvironment();
const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
  execute: async ({ word }: { word: string }) => ({ word, length: word.length }),
});
const results: ExecuteCodeResult[] = [];
let serving: HttpServing;
let client: Client;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "codecall-mcp-serve-"));
  const tool = createCodeTool({ environment, transport: createTransport(), tools: [lookup], limits: { timeoutMs: 120_000 } });
  serving = await serveHttp(tool, { onResult: (result) => results.push(result) });
  client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
});

afterAll(async () => {
  await client?.close();
  await serving?.close();
  await environment.close();
  await rm(scratch, { recursive: true, force: true });
});

describe("execute_code served over Streamable HTTP, driven by the SDK's Client", () => {
  it("lists execute_code with its schemas, its description of the tools and honest annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool!.name).toBe("execute_code");
    expect(tool!.description).toContain("lookup(word: str) -> Any: Looks a word up.");
    // Closed, like core's own parameters: strict clients (OpenAI's strict tools among them) require it.
    expect(tool!.inputSchema).toMatchObject({
      type: "object",
      properties: { code: { type: "string" } },
      required: ["code"],
      additionalProperties: false,
    });
    expect(tool!.outputSchema).toMatchObject({ properties: { status: { enum: ["success", "error", "timeout", "interrupted"] } } });
    expect(tool!.annotations).toEqual(EXECUTE_CODE_ANNOTATIONS);
    expect(tool!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  it("runs a script that calls a host tool: text for the model, the result as structured content", async () => {
    const result = await client.callTool({ name: "execute_code", arguments: { code: "from codecall import lookup\nprint(lookup('mcp'))" } });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "{'word': 'mcp', 'length': 3}\n" }]);
    expect(result.structuredContent).toMatchObject({ status: "success", exitCode: 0, toolCallsMade: 1, stdoutTruncated: false });
  });

  it("an argument execute_code does not take is a tool error naming it, not dropped while the script runs", async () => {
    const before = results.length;
    const result = await client.callTool({ name: "execute_code", arguments: { code: "print('ran')", timeout: 5 } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toContain('"timeout"');
    expect(results).toHaveLength(before);
  });

  it("an onResult that throws or rejects does not cost the client its result", async () => {
    for (const onResult of [
      () => {
        throw new Error("the log sink is down");
      },
      () => Promise.reject(new Error("the log sink is down")),
    ]) {
      const failingLog = await serveHttp(createCodeTool({ environment, transport: createTransport(), tools: [] }), { onResult });
      const other = new Client({ name: "test-client", version: "1.0.0" });
      await other.connect(new StreamableHTTPClientTransport(new URL(failingLog.url)));
      const result = await other.callTool({ name: "execute_code", arguments: { code: "print('the answer')" } });
      expect(result).toMatchObject({ content: [{ type: "text", text: "the answer\n" }], structuredContent: { status: "success" } });
      expect(result.isError).toBeUndefined();
      await other.close();
      await failingLog.close();
    }
  });

  it("a failing script is a failed call (isError) whose text says why", async () => {
    const result = await client.callTool({ name: "execute_code", arguments: { code: "raise SystemExit('no luck')" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "error", exitCode: 1 });
    expect((result.content as { text: string }[])[0]!.text).toContain("no luck");
  });

  it("sends the script's output lines and tool calls as progress while it runs", async () => {
    const messages: string[] = [];
    const code =
      "import time\nfrom codecall import lookup\nprint('first line', flush=True)\ntime.sleep(0.3)\nlookup('x')\nprint('second line')\nprint('last, unfinished', end='')";
    const result = await client.callTool({ name: "execute_code", arguments: { code } }, undefined, {
      onprogress: (progress) => messages.push(progress.message ?? ""),
    });
    expect(result.structuredContent).toMatchObject({ status: "success" });
    const all = messages.join("\n");
    expect(all.indexOf("first line")).toBeGreaterThanOrEqual(0);
    expect(all.indexOf("[calling lookup]")).toBeGreaterThan(all.indexOf("first line"));
    expect(all.indexOf("second line")).toBeGreaterThan(all.indexOf("[calling lookup]"));
    expect(all.endsWith("last, unfinished")).toBe(true);
  });

  it("cancelling the request interrupts the script and ends its process", async () => {
    const pidFile = path.join(scratch, "pid");
    const code = `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write(f"{os.getpid()}\\n")\ntime.sleep(600)`;
    const controller = new AbortController();
    const call = client.callTool({ name: "execute_code", arguments: { code } }, undefined, { signal: controller.signal, timeout: 600_000 });
    const settled = call.catch((error: unknown) => error);
    let pid = 0;
    await waitFor(async () => /^\d+\n$/.test(await readFile(pidFile, "utf8").catch(() => "")), "the script wrote its pid");
    pid = Number(await readFile(pidFile, "utf8"));
    expect(processAlive(pid)).toBe(true);
    const before = results.length;
    controller.abort("user pressed stop");
    expect(String(await settled)).toMatch(/user pressed stop|abort/i);
    await waitFor(() => results.length > before, "the run ended");
    expect(results.at(-1)).toMatchObject({ status: "interrupted" });
    await waitFor(() => !processAlive(pid), `script process ${pid} gone`);
  });

  it("a client that drops its connection mid-run interrupts the script: nobody could read its answer", async () => {
    const pidFile = path.join(scratch, "dropped.pid");
    const code = `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write(f"{os.getpid()}\\n")\ntime.sleep(600)`;
    const leaving = new Client({ name: "leaving-client", version: "1.0.0" });
    await leaving.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    void leaving.callTool({ name: "execute_code", arguments: { code } }, undefined, { timeout: 600_000 }).catch(() => {});
    await waitFor(async () => /^\d+\n$/.test(await readFile(pidFile, "utf8").catch(() => "")), "the script wrote its pid");
    const pid = Number(await readFile(pidFile, "utf8"));
    const before = results.length;
    await leaving.close();
    await waitFor(() => results.length > before, "the run ended");
    expect(results.at(-1)).toMatchObject({ status: "interrupted" });
    await waitFor(() => !processAlive(pid), `script process ${pid} gone`);
  });

  it("answers a body that is not JSON with JSON-RPC's Parse error", async () => {
    const response = await fetch(serving.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "garbage{",
    });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(answer.error.message).toMatch(/^Parse error: /);
  });

  it("answers JSON that is not a JSON-RPC message with Invalid Request, by its id when it has one, in a session or not", async () => {
    const session = { "mcp-session-id": (client.transport as StreamableHTTPClientTransport).sessionId!, "mcp-protocol-version": "2025-06-18" };
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(serving.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        text,
        answer: (response.status === 400 ? JSON.parse(text) : {}) as { id: unknown; error: { code: number; message: string } },
      };
    };
    const badParams = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "execute_code", _meta: { progressToken: {} } } };
    for (const [body, headers, id] of [
      [badParams, session, 9],
      [{ hello: "world" }, session, null],
      [[], session, null],
      [[{ jsonrpc: "2.0", id: 1, method: "ping" }, badParams], session, 9],
      [{ jsonrpc: "1.0", id: "init", method: "initialize", params: {} }, {}, "init"],
    ] as const) {
      const { status, answer } = await post(body, headers);
      expect(status).toBe(400);
      expect(answer).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
      expect(answer.error.message).toMatch(/^Invalid Request: /);
    }
    const ping = await post({ jsonrpc: "2.0", id: 10, method: "ping" }, session);
    expect(ping.status).toBe(200);
    expect(ping.text).toContain('"id":10');
  });

  it("refuses a request whose Host names another host (DNS rebinding) and a foreign Origin", async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(serving.url);
        const req = request(
          { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    expect(await status({ host: "evil.example:80" })).toBe(403);
    expect(await status({ origin: "https://evil.example" })).toBe(403);
    expect(await status({})).toBe(400);
  });
});
