/** The rpc namespace: each tool call's start and end, refused frames; never argument values. */
import { afterEach, describe, expect, it } from "vitest";
import type { ToolDefinition } from "../src/tool.js";
import { captureDebug, type DebugCapture } from "./support/debug.js";
import { call, echoTool, frame, hello, makeDispatcher, openConnection, send } from "./support/rpc.js";

const ARGUMENT_SECRET = "argument-value-that-may-be-a-secret";

const failing: ToolDefinition = {
  name: "failing",
  description: "Always fails.",
  parameters: { type: "object" },
  execute: () => {
    throw new Error(`cannot use ${ARGUMENT_SECRET}`);
  },
};

describe("rpc debug lines", () => {
  let debug: DebugCapture;
  afterEach(() => debug.stop());

  it("show each call's id, tool, sizes, outcome and duration, without argument values", async () => {
    debug = captureDebug("rpc");
    const connection = await openConnection(makeDispatcher({ tools: [echoTool, failing] }));
    await send(connection, call(1, "echo", { text: ARGUMENT_SECRET }));
    await send(connection, call("b", "failing", { text: ARGUMENT_SECRET }));
    expect(debug.lines).toEqual([
      "codecall:rpc connection authenticated (protocol 1)",
      "codecall:rpc call 1 echo: started, arguments 46 bytes",
      expect.stringMatching(/^codecall:rpc call 1 echo: ok, answer 72 bytes after \d+ ms$/),
      'codecall:rpc call "b" failing: started, arguments 46 bytes',
      expect.stringMatching(/^codecall:rpc call "b" failing: ToolFailed after \d+ ms$/),
    ]);
    expect(debug.lines.join("\n")).not.toContain(ARGUMENT_SECRET);
  });

  it("show refused frames by their error code, without the message (it may quote arguments)", async () => {
    debug = captureDebug("rpc");
    const dispatcher = makeDispatcher();
    const fresh = dispatcher.createConnection();
    await send(fresh, call(1, "echo", { text: "x" }));
    await send(fresh, hello(2, "wrong-token"));
    await send(fresh, "{not json");
    const connection = await openConnection(dispatcher);
    await send(connection, call(3, "echo", { text: 42, note: ARGUMENT_SECRET }));
    await send(connection, call(4, "nope"));
    await send(connection, frame(5, "tools/list"));
    expect(debug.lines).toEqual([
      "codecall:rpc refused request 1: Unauthorized",
      "codecall:rpc refused request 2: Unauthorized",
      "codecall:rpc refused a frame without a usable id: ParseError",
      "codecall:rpc connection authenticated (protocol 1)",
      "codecall:rpc refused request 3: InvalidParams",
      "codecall:rpc refused request 4: ToolNotAvailable",
      "codecall:rpc refused request 5: MethodNotFound",
    ]);
    expect(debug.lines.join("\n")).not.toContain(ARGUMENT_SECRET);
  });
});
