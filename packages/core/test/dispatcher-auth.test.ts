import { describe, expect, it } from "vitest";
import { RpcErrorCode } from "../src/protocol/messages.js";
import { call, frame, hello, makeDispatcher, send, TOKEN } from "./support/rpc.js";

describe("RpcConnection: hello", () => {
  it("accepts the right token and protocol", async () => {
    const connection = makeDispatcher().createConnection();
    expect(connection.authenticated).toBe(false);
    expect(await send(connection, hello(0))).toEqual({ jsonrpc: "2.0", id: 0, result: { protocol: 1 } });
    expect(connection.authenticated).toBe(true);
    expect(await send(connection, call(1, "echo", { text: "hi" }))).toEqual({ jsonrpc: "2.0", id: 1, result: "hi" });
  });

  it.each([
    ["a wrong token", "b".repeat(64)],
    ["a token prefix", TOKEN.slice(0, 63)],
    ["a longer token", `${TOKEN}a`],
    ["an empty token", ""],
    ["a missing token", undefined],
    ["a non-string token", 123],
  ])("refuses %s, and calls stay refused", async (_, token) => {
    const dispatcher = makeDispatcher();
    const connection = dispatcher.createConnection();
    const response = await send(connection, frame(0, "hello", token === undefined ? { protocol: 1 } : { token, protocol: 1 }));
    expect(response.id).toBe(0);
    expect(response.error?.code).toBe(RpcErrorCode.Unauthorized);
    expect(response.error?.code).toBe(-32001);
    expect(response.error?.message).toBe("Unauthorized: wrong or missing run token");
    const refused = await send(connection, call(1, "echo", { text: "hi" }));
    expect(refused.error?.code).toBe(-32001);
    expect(refused.id).toBe(1);
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("revokes a connection that sends a wrong token after a good one", async () => {
    const connection = makeDispatcher().createConnection();
    await send(connection, hello(0));
    expect((await send(connection, hello(1, "nope"))).error?.code).toBe(-32001);
    expect(connection.authenticated).toBe(false);
    expect((await send(connection, call(2, "echo", { text: "x" }))).error?.code).toBe(-32001);
  });

  it("revokes a connection that sends a hello with a wrong protocol after a good one", async () => {
    const connection = makeDispatcher().createConnection();
    await send(connection, hello(0));
    expect((await send(connection, frame(1, "hello", { token: TOKEN, protocol: 99 }))).error?.code).toBe(-32007);
    expect(connection.authenticated).toBe(false);
    expect((await send(connection, call(2, "echo", { text: "x" }))).error?.code).toBe(-32001);
  });

  it.each([
    ["2", 2],
    ["a string", "1"],
    ["missing", undefined],
  ])("answers a protocol that is %s with UnsupportedProtocol", async (_, protocol) => {
    const connection = makeDispatcher().createConnection();
    const response = await send(connection, frame(3, "hello", protocol === undefined ? { token: TOKEN } : { token: TOKEN, protocol }));
    expect(response.id).toBe(3);
    expect(response.error?.code).toBe(-32007);
    expect(response.error?.message).toBe(`Unsupported protocol ${String(protocol)}; the host speaks 1`);
    expect(connection.authenticated).toBe(false);
  });

  it("refuses tools/call before hello", async () => {
    const dispatcher = makeDispatcher();
    const response = await send(dispatcher.createConnection(), call(5, "echo", { text: "x" }));
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32001, message: "Unauthorized: send hello with the run token first" },
    });
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("answers an unknown method after hello with MethodNotFound", async () => {
    const connection = makeDispatcher().createConnection();
    await send(connection, hello());
    expect(await send(connection, frame(4, "tools/list"))).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32601, message: "Method not found: tools/list" },
    });
  });

  it("skips hello for connections created as authenticated, sharing the budget", async () => {
    const dispatcher = makeDispatcher({ maxToolCalls: 2 });
    const preauthenticated = dispatcher.createConnection({ authenticated: true });
    expect(preauthenticated.authenticated).toBe(true);
    expect((await send(preauthenticated, call(1, "echo", { text: "a" }))).result).toBe("a");
    const other = dispatcher.createConnection({ authenticated: true });
    expect((await send(other, call(1, "echo", { text: "b" }))).result).toBe("b");
    expect((await send(preauthenticated, call(2, "echo", { text: "c" }))).error?.code).toBe(-32003);
    expect(dispatcher.toolCallsMade).toBe(2);
    expect(dispatcher.createConnection({ authenticated: false }).authenticated).toBe(false);
  });

  it("answers malformed frames with an error, never silence", async () => {
    const connection = makeDispatcher().createConnection();
    expect((await send(connection, "not json")).error?.code).toBe(-32700);
    expect((await send(connection, "[]")).error?.code).toBe(-32600);
    expect(await send(connection, '{"jsonrpc":"2.0","id":1.5,"method":"hello"}')).toMatchObject({ id: null, error: { code: -32600 } });
  });
});
