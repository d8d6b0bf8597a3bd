import { describe, expect, it } from "vitest";
import { RpcDispatcher, type ToolCallEvent } from "../src/rpc/dispatcher.js";
import type { ToolContext, ToolDefinition } from "../src/tool.js";
import { call, echoTool, fakeEnvironment, frame, makeDispatcher, openConnection, send, TOKEN } from "./support/rpc.js";

const tool = (name: string, execute: ToolDefinition["execute"]): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: "object" },
  execute,
});

describe("RpcDispatcher: tools/call", () => {
  it("runs the tool with its arguments and context", async () => {
    const contexts: ToolContext[] = [];
    const seen: unknown[] = [];
    const inspect = tool("inspect", (args, context) => {
      seen.push(args);
      contexts.push(context);
      return { ok: true, nested: [1, "two", null] };
    });
    const connection = await openConnection(makeDispatcher({ tools: [inspect], runId: "run-42" }));
    expect(await send(connection, call(9, "inspect", { a: 1 }))).toEqual({ jsonrpc: "2.0", id: 9, result: { ok: true, nested: [1, "two", null] } });
    expect(await send(connection, call("s", "inspect"))).toMatchObject({ id: "s", result: { ok: true } });
    expect(seen).toEqual([{ a: 1 }, {}]);
    expect(contexts[0]?.environment).toBe(fakeEnvironment);
    expect(contexts[0]?.runId).toBe("run-42");
    // The call's number in the run, as its events and approval request name it.
    expect(contexts.map((context) => context.callId)).toEqual(["1", "2"]);
    expect(contexts[0]?.signal.aborted).toBe(false);
  });

  it("sends undefined results as null", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [tool("nothing", () => undefined)] }));
    expect(await send(connection, call(1, "nothing", {}))).toEqual({ jsonrpc: "2.0", id: 1, result: null });
  });

  it("refuses an unknown tool, listing the available ones", async () => {
    const dispatcher = makeDispatcher({ tools: [echoTool, tool("zeta", () => 1), tool("alpha", () => 1)] });
    const response = await send(await openConnection(dispatcher), call(2, "rm_rf", {}));
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32002, message: "Tool 'rm_rf' is not available in this run. Available: alpha, echo, zeta" },
    });
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("says no tools are enabled when the allow-list is empty", async () => {
    const response = await send(await openConnection(makeDispatcher({ tools: [] })), call(3, "echo", { text: "x" }));
    expect(response.error).toEqual({ code: -32002, message: "Tool 'echo' is not available: no tools are enabled in this run." });
  });

  it("does not reach inherited names through the allow-list", async () => {
    const response = await send(await openConnection(makeDispatcher()), call(3, "constructor", {}));
    expect(response.error?.code).toBe(-32002);
  });

  it.each([
    ["a missing name", {}],
    ["an empty name", { name: "" }],
    ["a numeric name", { name: 5 }],
  ])("answers %s with InvalidParams", async (_, params) => {
    const response = await send(await openConnection(makeDispatcher()), frame(4, "tools/call", params));
    expect(response.error).toEqual({ code: -32602, message: "tools/call needs params.name, the tool name" });
  });

  it.each([
    ["an array", [1]],
    ["a string", "x"],
    ["a number", 0],
  ])("refuses arguments that are %s", async (_, args) => {
    const response = await send(await openConnection(makeDispatcher()), frame(5, "tools/call", { name: "echo", arguments: args }));
    expect(response.error).toEqual({ code: -32602, message: "Invalid arguments: arguments must be an object" });
  });

  it("treats null arguments as no arguments", async () => {
    const response = await send(await openConnection(makeDispatcher()), frame(5, "tools/call", { name: "echo", arguments: null }));
    expect(response.error).toMatchObject({ code: -32602, message: "Invalid arguments: missing required argument 'text'" });
  });

  it("refuses arguments that fail the schema, naming the argument", async () => {
    let runs = 0;
    const counted: ToolDefinition = {
      ...echoTool,
      execute: () => {
        runs += 1;
        return "ran";
      },
    };
    const dispatcher = makeDispatcher({ tools: [counted] });
    const connection = await openConnection(dispatcher);
    const wrongType = await send(connection, call(6, "echo", { text: 5 }));
    expect(wrongType.error?.code).toBe(-32602);
    expect(wrongType.error?.message).toBe("Invalid arguments: 'text' must be a string, got the integer 5");
    expect(wrongType.error?.data).toEqual({ issues: ["'text' must be a string, got the integer 5"] });
    const several = await send(connection, call(7, "echo", { times: 0, colour: "red" }));
    expect(several.error?.message).toBe(
      "Invalid arguments: missing required argument 'text'; 'times' must be >= 1; unknown argument 'colour' (expected: text, times)",
    );
    expect(runs).toBe(0);
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("answers with ToolFailed and the tool's message when the tool throws", async () => {
    const dispatcher = makeDispatcher({
      tools: [
        tool("boom", () => {
          throw new Error("disk on fire");
        }),
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a tool that rejects with a non-Error is the case under test
        tool("reject", async () => Promise.reject("plain string")),
        tool("silent", () => {
          throw new Error("");
        }),
      ],
    });
    const connection = await openConnection(dispatcher);
    expect(await send(connection, call(1, "boom", {}))).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32004, message: "disk on fire" } });
    expect((await send(connection, call(2, "reject", {}))).error).toEqual({ code: -32004, message: "plain string" });
    expect((await send(connection, call(3, "silent", {}))).error).toEqual({ code: -32004, message: "silent failed" });
    expect(dispatcher.toolCallsMade).toBe(3); // a failed tool was still dispatched
  });

  it("says a tool threw nothing readable when it throws or rejects with undefined or null", async () => {
    const dispatcher = makeDispatcher({
      tools: [
        tool("void", () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- a careless tool's throw is the case under test
          throw undefined;
        }),
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- likewise
        tool("nil", async () => Promise.reject(null)),
      ],
    });
    const connection = await openConnection(dispatcher);
    expect((await send(connection, call(1, "void", {}))).error).toEqual({ code: -32004, message: "void failed (it threw undefined, not an Error)" });
    expect((await send(connection, call(2, "nil", {}))).error).toEqual({ code: -32004, message: "nil failed (it threw null, not an Error)" });
  });

  it("answers a result that is not JSON with ToolFailed, and keeps working", async () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const dispatcher = makeDispatcher({ tools: [echoTool, tool("big", () => ({ n: 10n })), tool("loop", () => circular)] });
    const connection = await openConnection(dispatcher);
    const bigint = await send(connection, call(1, "big", {}));
    expect(bigint.id).toBe(1);
    expect(bigint.error?.code).toBe(-32004);
    expect(bigint.error?.message).toMatch(/^big returned a result that is not JSON: .*BigInt/);
    const cycle = await send(connection, call(2, "loop", {}));
    expect(cycle.error?.code).toBe(-32004);
    expect(cycle.error?.message).toMatch(/^loop returned a result that is not JSON: .*circular/i);
    expect(await send(connection, call(3, "echo", { text: "still here" }))).toEqual({ jsonrpc: "2.0", id: 3, result: "still here" });
    expect(dispatcher.inFlightCount).toBe(0);
  });

  it.each([
    ["a function", () => () => 1],
    ["a symbol", () => Symbol("s")],
  ])("answers a tool that returns %s with ToolFailed instead of a response without result", async (_, make) => {
    const dispatcher = makeDispatcher({ tools: [tool("odd", make)] });
    const connection = await openConnection(dispatcher);
    const response = await send(connection, call(1, "odd", {}));
    expect(response.error?.code).toBe(-32004);
    expect(response.error?.message).toMatch(/^odd returned a result that is not JSON/);
  });

  it("reports start and end events around each dispatched call", async () => {
    const events: ToolCallEvent[] = [];
    const dispatcher = makeDispatcher({
      tools: [echoTool, tool("boom", () => Promise.reject(new Error("nope")))],
      onToolCall: (event) => events.push(event),
    });
    const connection = await openConnection(dispatcher);
    await send(connection, call(1, "echo", { text: "a" }));
    await send(connection, call(2, "boom", {}));
    await send(connection, call(3, "missing", {})); // refused: no events
    await send(connection, call(4, "echo", { text: 1 })); // refused: no events
    expect(events.map(({ durationMs: _, ...rest }: ToolCallEvent & { durationMs?: number }) => rest)).toEqual([
      { phase: "start", id: 1, name: "echo", arguments: { text: "a" } },
      { phase: "end", id: 1, name: "echo", ok: true },
      { phase: "start", id: 2, name: "boom", arguments: {} },
      { phase: "end", id: 2, name: "boom", ok: false, error: "nope" },
    ]);
    for (const event of events) if (event.phase === "end") expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("every response frame ends with exactly one newline", async () => {
    const dispatcher = new RpcDispatcher({ tools: [echoTool], token: TOKEN, environment: fakeEnvironment, runId: "r" });
    const connection = dispatcher.createConnection();
    const frames = [
      "garbage",
      call(1, "echo", { text: "x" }),
      frame(2, "hello", { token: TOKEN, protocol: 1 }),
      call(3, "echo", { text: "multi\nline\n\n" }),
      call(4, "nope", {}),
      call(5, "echo", {}),
      frame(6, "other"),
    ];
    for (const line of frames) {
      const text = await connection.handleFrame(line);
      expect(text.endsWith("\n")).toBe(true);
      expect(text.slice(0, -1)).not.toContain("\n");
    }
    expect(connection.rejectOversizedFrame("x", 10, 5).endsWith("}\n")).toBe(true);
  });
});
