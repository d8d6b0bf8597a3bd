import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_TOOL_CALLS } from "../src/rpc/dispatcher.js";
import { call, makeDispatcher, openConnection, send } from "./support/rpc.js";

describe("RpcDispatcher: tool-call budget", () => {
  it("allows maxToolCalls calls, then answers ToolCallLimit", async () => {
    const dispatcher = makeDispatcher({ maxToolCalls: 3 });
    const connection = await openConnection(dispatcher);
    for (let id = 1; id <= 3; id += 1) {
      expect(await send(connection, call(id, "echo", { text: `${id}` }))).toEqual({ jsonrpc: "2.0", id, result: `${id}` });
    }
    const refused = await send(connection, call(4, "echo", { text: "4" }));
    expect(refused.id).toBe(4);
    expect(refused.error?.code).toBe(-32003);
    expect(refused.error?.message).toBe("Tool call limit reached (3). No more tool calls allowed in this execution.");
    expect((await send(connection, call(5, "echo", { text: "5" }))).error?.code).toBe(-32003);
    expect(dispatcher.toolCallsMade).toBe(3);
  });

  it("does not count refused calls", async () => {
    const dispatcher = makeDispatcher({ maxToolCalls: 2 });
    const connection = await openConnection(dispatcher);
    await send(connection, call(1, "echo", { text: 1 })); // invalid arguments
    await send(connection, call(2, "ghost", {})); // unknown tool
    await send(connection, call(3, "echo", {})); // missing argument
    expect(dispatcher.toolCallsMade).toBe(0);
    expect((await send(connection, call(4, "echo", { text: "a" }))).result).toBe("a");
    expect((await send(connection, call(5, "echo", { text: "b" }))).result).toBe("b");
    expect(dispatcher.toolCallsMade).toBe(2);
    expect((await send(connection, call(6, "echo", { text: "c" }))).error?.code).toBe(-32003);
  });

  it("refuses every call with a budget of zero", async () => {
    const dispatcher = makeDispatcher({ maxToolCalls: 0 });
    const response = await send(await openConnection(dispatcher), call(1, "echo", { text: "a" }));
    expect(response.error?.message).toBe("Tool call limit reached (0). No more tool calls allowed in this execution.");
  });

  it("enforces the budget for calls that arrive concurrently", async () => {
    const dispatcher = makeDispatcher({ maxToolCalls: 3 });
    const connection = await openConnection(dispatcher);
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => send(connection, call(index, "echo", { text: "x" }))));
    expect(responses.filter((response) => response.result === "x")).toHaveLength(3);
    expect(responses.filter((response) => response.error?.code === -32003)).toHaveLength(5);
    expect(responses.map((response) => response.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("defaults to 50 calls", async () => {
    expect(DEFAULT_MAX_TOOL_CALLS).toBe(50);
    const dispatcher = makeDispatcher();
    const connection = await openConnection(dispatcher);
    for (let id = 0; id < 50; id += 1) await send(connection, call(id, "echo", { text: "x" }));
    expect((await send(connection, call(50, "echo", { text: "x" }))).error?.message).toMatch(/^Tool call limit reached \(50\)/);
  });
});
