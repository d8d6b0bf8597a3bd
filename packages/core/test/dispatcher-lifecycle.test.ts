import { describe, expect, it } from "vitest";
import type { RpcDispatcher, ToolCallEvent } from "../src/rpc/dispatcher.js";
import type { ToolDefinition } from "../src/tool.js";
import { call, decode, deferred, makeDispatcher, openConnection, send } from "./support/rpc.js";

describe("RpcDispatcher: close and cancellation", () => {
  it("cancels an in-flight call at once and aborts the tool's signal", async () => {
    const started = deferred<AbortSignal>();
    const hang: ToolDefinition = {
      name: "hang",
      description: "never returns",
      parameters: { type: "object" },
      execute: (_args, context) => {
        started.resolve(context.signal);
        return new Promise(() => {});
      },
    };
    const events: ToolCallEvent[] = [];
    const dispatcher = makeDispatcher({ tools: [hang], onToolCall: (event) => events.push(event) });
    const connection = await openConnection(dispatcher);
    const pending = connection.handleFrame(call(11, "hang", {}));
    const signal = await started.promise;
    expect(dispatcher.inFlightCount).toBe(1);
    expect(signal.aborted).toBe(false);

    dispatcher.close("the script was interrupted");
    // The tool never settles: this resolves only because close() answers for it.
    const response = decode(await pending);
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 11,
      error: { code: -32005, message: "Tool call cancelled: the script was interrupted" },
    });
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("the script was interrupted");
    expect(dispatcher.inFlightCount).toBe(0);
    expect(events.at(-1)).toMatchObject({ phase: "end", id: 11, ok: false, error: "Tool call cancelled: the script was interrupted" });
  });

  it("cancels a call whose tool never read its signal, and hands a later reader an aborted one", async () => {
    let context: { signal: AbortSignal } | undefined;
    const hang: ToolDefinition = {
      name: "hang",
      description: "never returns, never looks at its signal",
      parameters: { type: "object" },
      execute: (_args, toolContext) => {
        context = toolContext;
        return new Promise(() => {});
      },
    };
    const dispatcher = makeDispatcher({ tools: [hang] });
    const connection = await openConnection(dispatcher);
    const pending = connection.handleFrame(call(3, "hang", {}));
    await Promise.resolve();
    dispatcher.close("the script timed out");
    expect(decode(await pending).error).toEqual({ code: -32005, message: "Tool call cancelled: the script timed out" });
    // The signal is made when first read: one read after the cancellation is already aborted.
    expect(context?.signal.aborted).toBe(true);
    expect(context?.signal.reason).toBe("the script timed out");
  });

  it("answers a tool's synchronous result and its synchronous throw like an async one", async () => {
    const tools: ToolDefinition[] = [
      { name: "now", description: "", parameters: { type: "object" }, execute: () => ({ at: 1 }) },
      {
        name: "boom",
        description: "",
        parameters: { type: "object" },
        execute: () => {
          throw new Error("sync failure");
        },
      },
    ];
    const dispatcher = makeDispatcher({ tools });
    const connection = await openConnection(dispatcher);
    expect(await send(connection, call(1, "now", {}))).toEqual({ jsonrpc: "2.0", id: 1, result: { at: 1 } });
    expect((await send(connection, call(2, "boom", {}))).error).toEqual({ code: -32004, message: "sync failure" });
    expect(dispatcher.inFlightCount).toBe(0);
  });

  it("does not run an approved call whose run stopped as the verdict came", async () => {
    let ran = false;
    const gated: ToolDefinition = {
      name: "gated",
      description: "needs approval",
      parameters: { type: "object" },
      needsApproval: true,
      execute: () => {
        ran = true;
        return "done";
      },
    };
    const dispatcher: RpcDispatcher = makeDispatcher({
      tools: [gated],
      onApproval: () => "approve",
      // The verdict is out: the run is stopped before the tool would start.
      onEvent: (event) => {
        if (event.type === "approval-decided") dispatcher.close("the script was interrupted");
      },
    });
    const connection = await openConnection(dispatcher);
    const response = decode(await connection.handleFrame(call(4, "gated", {})));
    expect(response.error).toEqual({ code: -32005, message: "Tool call cancelled: the script was interrupted" });
    expect(ran).toBe(false);
  });

  it("refuses calls after close with Cancelled, without running the tool", async () => {
    let runs = 0;
    const counted: ToolDefinition = { name: "count", description: "", parameters: { type: "object" }, execute: () => ++runs };
    const dispatcher = makeDispatcher({ tools: [counted] });
    const connection = await openConnection(dispatcher);
    dispatcher.close();
    expect(await send(connection, call(1, "count", {}))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32005, message: "Tool call cancelled: the run has ended" },
    });
    dispatcher.close("a later reason"); // the first reason stays
    expect((await send(connection, call(2, "count", {}))).error?.message).toBe("Tool call cancelled: the run has ended");
    expect(runs).toBe(0);
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("runs calls concurrently", async () => {
    let current = 0;
    let maxConcurrent = 0;
    const slow: ToolDefinition<{ n: number }, number> = {
      name: "slow",
      description: "waits",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      execute: async ({ n }) => {
        current += 1;
        maxConcurrent = Math.max(maxConcurrent, current);
        await new Promise((resolve) => setTimeout(resolve, 50));
        current -= 1;
        return n * 2;
      },
    };
    const dispatcher = makeDispatcher({ tools: [slow] });
    const connection = await openConnection(dispatcher);
    const pending = Array.from({ length: 10 }, (_, index) => send(connection, call(index + 1, "slow", { n: index })));
    const responses = await Promise.all(pending);
    expect(maxConcurrent).toBe(10);
    expect(responses.map((response) => [response.id, response.result])).toEqual(Array.from({ length: 10 }, (_, index) => [index + 1, index * 2]));
    expect(dispatcher.toolCallsMade).toBe(10);
    expect(dispatcher.inFlightCount).toBe(0);
  });

  it("answers each concurrent caller under its own id, whatever order tools finish in", async () => {
    const gates = [deferred(), deferred(), deferred()];
    let startedCount = 0;
    const allStarted = deferred();
    const gated: ToolDefinition<{ i: number }> = {
      name: "gated",
      description: "",
      parameters: { type: "object" },
      execute: async ({ i }) => {
        if (++startedCount === 3) allStarted.resolve();
        await gates[i]!.promise;
        return `done ${i}`;
      },
    };
    const connection = await openConnection(makeDispatcher({ tools: [gated] }));
    const order: (number | string | null)[] = [];
    const pending = [0, 1, 2].map((i) => send(connection, call(`c${i}`, "gated", { i })).then((r) => (order.push(r.id), r)));
    await allStarted.promise;
    gates[2]!.resolve();
    expect(await pending[2]).toEqual({ jsonrpc: "2.0", id: "c2", result: "done 2" });
    expect(order).toEqual(["c2"]);
    gates[0]!.resolve();
    expect(await pending[0]).toEqual({ jsonrpc: "2.0", id: "c0", result: "done 0" });
    expect(order).toEqual(["c2", "c0"]);
    gates[1]!.resolve();
    expect(await pending[1]).toEqual({ jsonrpc: "2.0", id: "c1", result: "done 1" });
  });
});

describe("RpcConnection.rejectOversizedFrame", () => {
  it("answers FrameTooLarge to the id sniffed from the prefix", () => {
    const connection = makeDispatcher().createConnection();
    const prefix = '{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"text":"aaaa';
    expect(decode(connection.rejectOversizedFrame(prefix, 20_000_000, 16_777_216))).toEqual({
      jsonrpc: "2.0",
      id: 17,
      error: { code: -32006, message: "Request too large: 20000000 bytes exceeds the 16777216-byte frame limit" },
    });
    expect(decode(connection.rejectOversizedFrame('{"jsonrpc":"2.0","id":"k1","method"', 9, 8)).id).toBe("k1");
  });

  it("answers with a null id when the prefix does not reveal one", () => {
    const connection = makeDispatcher().createConnection();
    expect(decode(connection.rejectOversizedFrame('{"method":"tools/call","id":3', 9, 8))).toMatchObject({ id: null, error: { code: -32006 } });
  });
});
