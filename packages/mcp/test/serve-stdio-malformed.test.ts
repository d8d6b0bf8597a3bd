// serveStdio given lines a client should never send: each gets JSON-RPC's error answer (the SDK
// alone drops them without a word), and the server goes on answering the requests after them.
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { createEnvironment } from "@codecall/backend-local";
import { createCodeTool } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { afterAll, describe, expect, it } from "vitest";
import { serveStdio } from "../src/index.js";

const environment = createEnvironment();
afterAll(() => environment.close());

describe("serveStdio and lines that are not JSON-RPC messages", () => {
  it("answers each with Parse error or Invalid Request (id null) and still serves the requests that follow", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const tool = createCodeTool({ environment, transport: createTransport(), tools: [] });
    const serving = await serveStdio(tool, { stdin, stdout });
    const answers = createInterface({ input: stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse(((await answers.next()).value as string) ?? "null") as Record<string, unknown>;
    const send = (line: string) => stdin.write(`${line}\n`);

    const expectError = async (code: number, says: string) => {
      const answer = (await next()) as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: string } };
      expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
      expect(answer.error?.message).toContain(says);
    };
    send("garbage{");
    await expectError(-32700, "not JSON");
    for (const line of ["[]", "42", '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', '{"jsonrpc":"1.0","id":3,"method":"ping"}']) {
      send(line);
      await expectError(-32600, "not a JSON-RPC 2.0 message");
    }
    send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });

    stdin.end();
    await serving.closed;
  });
});
