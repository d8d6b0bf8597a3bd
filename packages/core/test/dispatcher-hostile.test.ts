import { describe, expect, it } from "vitest";
import type { ToolCallEvent } from "../src/rpc/dispatcher.js";
import type { ToolDefinition } from "../src/tool.js";
import { call, deferred, makeDispatcher, openConnection, send } from "./support/rpc.js";

const tool = (name: string, execute: ToolDefinition["execute"]): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: "object" },
  execute,
});
const nested = (levels: number, leaf: unknown = 0): unknown => {
  let value = leaf;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
};
const boom = () => {
  throw new Error("boom");
};

describe("RpcDispatcher against hostile scripts and tools", () => {
  it("refuses a result nested deeper than the limit, naming it, and serves the next call", async () => {
    const build = tool("build", ({ levels }) => nested(levels as number));
    const connection = await openConnection(makeDispatcher({ tools: [build] }));
    expect((await send(connection, call(1, "build", { levels: 64 }))).result).toEqual(nested(64));
    for (const levels of [65, 3_000, 100_000]) {
      const response = await send(connection, call(2, "build", { levels }));
      expect(response.id).toBe(2);
      expect(response.error?.code).toBe(-32004);
      expect(response.error?.message).toMatch(/64[- ]level/);
    }
    const custom = await openConnection(makeDispatcher({ tools: [build], maxJsonDepth: 10 }));
    expect((await send(custom, call(3, "build", { levels: 11 }))).error?.message).toBe(
      "build returned a result that is nested deeper than the 10-level limit of tool results",
    );
    expect((await send(custom, call(4, "build", { levels: 10 }))).result).toEqual(nested(10));
  });

  it("refuses a result whose answer exceeds the frame limit, naming it", async () => {
    const big = tool("big", ({ size }) => ({ text: "é".repeat(size as number) }));
    const connection = await openConnection(makeDispatcher({ tools: [big], maxFrameBytes: 1_000 }));
    const response = await send(connection, call(1, "big", { size: 600 }));
    expect(response.error?.code).toBe(-32004);
    expect(response.error?.message).toMatch(/^big returned a result that is too large: its answer takes \d+ bytes, over the 1000-byte frame limit$/);
    expect((await send(connection, call(2, "big", { size: 400 }))).result).toEqual({ text: "é".repeat(400) });
  });

  it("refuses arguments nested deeper than the limit before parsing them, answering the caller's id", async () => {
    const events: ToolCallEvent[] = [];
    const connection = await openConnection(makeDispatcher({ tools: [tool("take", () => "ran")], onToolCall: (event) => events.push(event) }));
    const deep = `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"take","arguments":{"payload":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`;
    const response = await send(connection, deep);
    expect(response).toMatchObject({
      id: 77,
      error: { code: -32600, message: "Request nested too deeply: arguments may nest at most 64 levels of arrays/objects" },
    });
    expect(events).toEqual([]);
    expect((await send(connection, call(78, "take", { payload: nested(63) }))).result).toBe("ran");
  });

  it("answers every call whatever the progress callback does with the deepest arguments it may see", async () => {
    const outcomes = [(event: ToolCallEvent) => JSON.stringify(event), () => boom(), async () => boom()];
    for (const onToolCall of outcomes) {
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a callback that returns a rejected promise is one of the cases
      const connection = await openConnection(makeDispatcher({ tools: [tool("take", () => "ran")], maxJsonDepth: 1_000_000, onToolCall }));
      // Deeper arguments never reach the callback: validation refuses them (see the test above).
      expect((await send(connection, call(1, "take", { payload: nested(63) }))).result).toBe("ran");
      const deep = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"take","arguments":{"payload":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`;
      expect(await send(connection, deep)).toMatchObject({ id: 2, error: { code: -32602 } });
    }
  });

  it.each<[string, () => unknown, string | RegExp]>([
    [
      "an Error whose message getter throws",
      () => {
        throw Object.defineProperty(new Error(), "message", { get: boom });
      },
      "an error that cannot be read (reading its message threw)",
    ],
    [
      "a Proxy whose traps throw",
      () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- hostile thrown values are the case under test
        throw new Proxy({}, { getPrototypeOf: boom, get: boom, ownKeys: boom });
      },
      "an error that cannot be read (reading its message threw)",
    ],
    [
      "a non-Error object",
      () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- hostile thrown values are the case under test
        throw { reason: "quota" };
      },
      '{"reason":"quota"}',
    ],
    [
      "a huge message",
      () => {
        throw new Error("m".repeat(1_000_000));
      },
      /^m{16384}… \(983616 more characters\)$/,
    ],
  ])("turns a tool that throws %s into an error answer", async (_, execute, message) => {
    const events: ToolCallEvent[] = [];
    const connection = await openConnection(makeDispatcher({ tools: [tool("odd", execute)], onToolCall: (event) => events.push(event) }));
    const response = await send(connection, call(5, "odd", {}));
    expect(response.id).toBe(5);
    expect(response.error?.code).toBe(-32004);
    if (typeof message === "string") expect(response.error?.message).toBe(message);
    else expect(response.error?.message).toMatch(message);
    expect(events.at(-1)).toMatchObject({ phase: "end", ok: false, error: response.error?.message });
  });

  it.each<[string, () => unknown, RegExp]>([
    ["a throwing toJSON", () => ({ toJSON: boom }), /^bad returned a result that is not JSON: boom$/],
    ["a throwing getter", () => Object.defineProperty({}, "x", { get: boom, enumerable: true }), /^bad returned a result that is not JSON: boom$/],
    // Awaiting it reads `then`, so the trap throws even before the encoder runs.
    ["a Proxy whose traps throw", () => new Proxy({}, { get: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }), /^boom$/],
    [
      "a thenable whose then getter throws",
      () => ({
        get then() {
          return boom();
        },
      }),
      /^boom$/,
    ],
    ["a BigInt", () => 1n, /^bad returned a result that is not JSON: .*BigInt/],
    ["a Map", () => new Map([["a", 1]]), /^bad returned a result that JSON would carry as \{\}: a Map at \$; return plain objects/],
    ["a Set deep inside", () => ({ data: { "the items": [1, new Set([1])] } }), /: a Set at \$\.data\["the items"\]\[1\];/],
    ["an unawaited Promise", () => ({ page: new Promise(() => {}) }), /: a Promise \(was it awaited\?\) at \$\.page;/],
    ["an Error", () => [new Error("disk full")], /: an Error \("disk full"\) at \$\[0\];/],
    ["an ArrayBuffer", () => ({ bytes: new ArrayBuffer(4) }), /: an ArrayBuffer at \$\.bytes;/],
    [
      "a class instance with private state",
      () => ({
        point: new (class Point {
          #x = 1;
          get x() {
            return this.#x;
          }
        })(),
      }),
      /: an instance of Point with no JSON properties at \$\.point;/,
    ],
    [
      "100 000 levels",
      () => nested(100_000),
      /^bad returned a result that is not JSON: .*\(results are limited to 64 levels of nesting and a 16777216-byte frame\)$/,
    ],
  ])("turns a result with %s into an error answer", async (_, execute, message) => {
    const connection = await openConnection(makeDispatcher({ tools: [tool("bad", execute)] }));
    const response = await send(connection, call(6, "bad", {}));
    expect(response.id).toBe(6);
    expect(response.error?.message).toMatch(message);
  });

  it("keeps results that only look empty: {}, a null-prototype object, a Date, an empty Map or buffer, a class instance with fields, a '{}' string", async () => {
    const results: unknown[] = [
      {},
      { a: {} },
      Object.create(null),
      { when: new Date(0) },
      { none: new Map(), nothing: new Set() },
      new Uint8Array(0),
      new (class Point {
        x = 1;
      })(),
      "{}",
      [[], {}],
    ];
    const connection = await openConnection(makeDispatcher({ tools: [tool("fine", (args) => results[(args as { index: number }).index])] }));
    for (const [index, result] of results.entries()) {
      const response = await send(connection, call(index + 1, "fine", { index }));
      expect(response.error).toBeUndefined();
      expect(response.result).toEqual(JSON.parse(JSON.stringify(result)));
    }
  });

  it("answers a call whose tool never settles once the run closes", async () => {
    const started = deferred();
    const dispatcher = makeDispatcher({ tools: [tool("forever", () => (started.resolve(), new Promise(() => {})))] });
    const connection = await openConnection(dispatcher);
    const answer = send(connection, call(9, "forever", {}));
    await started.promise;
    dispatcher.close("the script timed out");
    expect((await answer).error).toEqual({ code: -32005, message: "Tool call cancelled: the script timed out" });
  });
});
