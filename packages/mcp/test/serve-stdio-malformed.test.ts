// serveStdio given lines a client should never send, and a client that goes away: each bad line
// gets JSON-RPC's error answer — with the request's id whenever it can be read — and the server
// goes on answering the requests after it; a stdout that fails closes the connection cleanly.
// (The SDK's own stdio transport dropped such lines without a word, closed the connection for a
// line over 10 MiB, and crashed the process on a failed write.)
import { createInterface } from "node:readline";
import { PassThrough, Writable } from "node:stream";
import { createEnvironment } from "@codecall/backend-local";
import { createCodeTool, type ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { afterAll, describe, expect, it } from "vitest";
import { serveStdio, type StdioServeOptions } from "../src/index.js";

const environment = createEnvironment();
afterAll(() => environment.close());

interface Answer {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: string };
}

/** A server on in-memory stdio, with what a client needs to talk to it line by line. */
async function connect(options: StdioServeOptions = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const tool = createCodeTool({ environment, transport: createTransport(), tools: [] });
  const serving = await serveStdio(tool, { stdin, stdout, ...options });
  const answers = createInterface({ input: stdout })[Symbol.asyncIterator]();
  return {
    stdin,
    serving,
    send: (line: string) => stdin.write(`${line}\n`),
    next: async () => JSON.parse(((await answers.next()).value as string) ?? "null") as Answer,
  };
}

describe("serveStdio and lines that are not JSON-RPC messages", () => {
  it("answers each with Parse error or Invalid Request (id null when none can be read) and still serves the requests that follow", async () => {
    const { stdin, serving, send, next } = await connect();
    const expectError = async (id: unknown, code: number, says: string) => {
      const answer = await next();
      expect(answer).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      expect(answer.error?.message).toContain(says);
    };
    send("garbage{");
    await expectError(null, -32700, "not JSON");
    for (const line of ["[]", "42", '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', '{"jsonrpc":"2.0","id":3,"result":"no method"}']) {
      send(line);
      await expectError(null, -32600, "not a valid JSON-RPC 2.0 message");
    }
    // A request whose id can be read, but that is wrong elsewhere: its caller is told, by its id.
    send('{"jsonrpc":"1.0","id":3,"method":"ping"}');
    await expectError(3, -32600, "not a valid JSON-RPC 2.0 message");
    send('{"jsonrpc":"2.0","id":"call-5","method":"tools/call","params":{"name":"execute_code","_meta":{"progressToken":{}}}}');
    await expectError("call-5", -32600, "not a valid JSON-RPC 2.0 message");
    send("   \r");
    send('{"jsonrpc":"2.0","id":7,"method":"ping"}\r');
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });

    stdin.end();
    await serving.closed;
  });

  it("skips a line over the limit without holding it, answers it by its id, and goes on", async () => {
    const { stdin, serving, send, next } = await connect({ maxMessageBytes: 1_000 });
    const huge = "x".repeat(5_000);
    // The TypeScript SDK writes the id last, other clients first; a response of the client's gets id null.
    send(`{"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"${huge}"}},"jsonrpc":"2.0","id":11}`);
    send(`{"jsonrpc":"2.0","id":"twelve","method":"tools/call","params":{"name":"execute_code","arguments":{"code":"${huge}"}}}`);
    send(`{"jsonrpc":"2.0","id":0,"result":{"content":"${huge}"}}`);
    // Written in small pieces, as a pipe may deliver it: the id at its end is still found.
    const line = `{"method":"ping","params":{"_meta":{"note":"${huge}"}},"jsonrpc":"2.0","id":13}\n`;
    for (let at = 0; at < line.length; at += 7) stdin.write(line.slice(at, at + 7));
    for (const id of [11, "twelve", null, 13]) {
      const answer = await next();
      expect(answer).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
      expect(answer.error?.message).toContain("over 1000 bytes");
    }
    send('{"jsonrpc":"2.0","id":14,"method":"ping"}');
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 14, result: {} });
    stdin.end();
    await serving.closed;
  });

  it("by default refuses a message over 4 MiB (one of 11 MiB used to end the connection without an answer)", async () => {
    const { stdin, serving, send, next } = await connect();
    send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"blob":"${"y".repeat(11 * 1024 * 1024)}"}}}`);
    expect(await next()).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringContaining("over 4194304 bytes") as unknown } });
    send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    stdin.end();
    await serving.closed;
  });
});

describe("serveStdio and a client that goes away", () => {
  it("a failed write to stdout (EPIPE) closes the connection and interrupts the run, without crashing the process", async () => {
    const stdin = new PassThrough();
    let failWrites = false;
    let written = "";
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (failWrites) return callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        written += chunk.toString();
        callback();
      },
    });
    const results: ExecuteCodeResult[] = [];
    const tool = createCodeTool({ environment, transport: createTransport(), tools: [] });
    const serving = await serveStdio(tool, { stdin, stdout, progressIntervalMs: 10, onResult: (result) => results.push(result) });
    const send = (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // Prints for ever, so the server keeps writing progress until its stdout fails.
    const code = "import time\nprint('started', flush=True)\nwhile True:\n    print('tick', flush=True)\n    time.sleep(0.01)";
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "execute_code", arguments: { code }, _meta: { progressToken: "p" } } });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!written.includes("started")) return;
        clearInterval(check);
        resolve();
      }, 20);
    });
    failWrites = true;
    await serving.closed;
    expect(results.map((result) => result.status)).toEqual(["interrupted"]);
  });
});
