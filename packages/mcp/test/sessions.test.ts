/**
 * execute_code served with `session`, driven by the SDK's Client over Streamable HTTP: each MCP
 * session keeps its own Python session (state survives between its calls, never seen by another
 * client), `reset` is in the tool's schema and works, and a client that ends its MCP session ends
 * its Python session too. Real parts: the local backend, UDS, python3.
 */
import { createEnvironment } from "@codecall/backend-local";
import { createCodeSessionPool, createCodeTool } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveHttp, type HttpServing } from "../src/index.js";
import { waitFor } from "./support.js";

const environment = createEnvironment();
const pool = createCodeSessionPool();
let serving: HttpServing;

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "session-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(serving.url));
  await client.connect(transport);
  return { client, transport };
}

async function run(client: Client, code: string, reset?: boolean) {
  const result = await client.callTool({ name: "execute_code", arguments: { code, ...(reset === undefined ? {} : { reset }) } });
  return { text: (result.content as { text: string }[])[0]!.text, structured: result.structuredContent as Record<string, unknown> };
}

beforeAll(async () => {
  const tool = createCodeTool({ environment, transport: createTransport(), session: { pool }, limits: { timeoutMs: 120_000 } });
  serving = await serveHttp(tool);
});

afterAll(async () => {
  await serving?.close();
  await pool.close();
  await environment.close();
});

describe("execute_code with sessions over MCP", () => {
  it("lists reset in the input schema and says that state persists", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools[0]!.inputSchema.properties).toMatchObject({ code: { type: "string" }, reset: { type: "boolean" } });
    expect(tools[0]!.inputSchema).toMatchObject({ required: ["code"], additionalProperties: false });
    expect(tools[0]!.description).toContain("State persists between calls in this conversation");
    expect(tools[0]!.outputSchema?.properties).toHaveProperty("state");
    await client.close();
  });

  it("keeps state per MCP session, apart from other clients', and resets on request", async () => {
    const alice = await connect();
    const bob = await connect();
    expect((await run(alice.client, "import math\ncount = 1")).structured).toMatchObject({ status: "success", cell: 1, state: "fresh" });
    expect((await run(bob.client, "count = 100")).structured).toMatchObject({ status: "success", state: "fresh" });
    const again = await run(alice.client, "count += 1\nprint(count, math.floor(2.5))");
    expect(again.text).toBe("2 2\n");
    expect(again.structured).toMatchObject({ cell: 2, state: "kept" });
    expect((await run(bob.client, "print(count)")).text).toBe("100\n");
    const reset = await run(alice.client, "print('count' in globals())", true);
    expect(reset.text).toBe("False\n");
    expect(reset.structured).toMatchObject({ state: "fresh" });
    expect((await run(bob.client, "print(count)")).text).toBe("100\n");
    expect(pool.size).toBe(2);

    // Ending an MCP session (DELETE) ends its Python session; the other goes on.
    await alice.transport.terminateSession();
    await alice.client.close();
    await waitFor(() => pool.size === 1, "alice's Python session ends with her MCP session");
    expect((await run(bob.client, "print(count)")).structured).toMatchObject({ state: "kept" });
    await bob.client.close();
  });
});
