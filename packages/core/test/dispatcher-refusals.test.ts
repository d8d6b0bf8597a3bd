import { describe, expect, it } from "vitest";
import { CallFlow } from "../src/protocol/call-flow.js";
import { RpcErrorCode } from "../src/protocol/messages.js";
import { REFUSED_FRAMES_PER_RUN } from "../src/rpc/refusal-budget.js";
import { call, decode, frame, hello, makeDispatcher, openConnection, send } from "./support/rpc.js";

/** A request the dispatcher refuses (unknown tool) of exactly `bytes` bytes. */
const junk = (id: number, bytes: number) => call(id, "ghost", { pad: "x".repeat(bytes - call(id, "ghost", { pad: "" }).length) });

describe("RpcDispatcher: budget of refused requests", () => {
  it("answers every request unread once refused ones have taken the run's budget, with an error that says why", async () => {
    const maxFrameBytes = 4096;
    const dispatcher = makeDispatcher({ maxFrameBytes, maxToolCalls: 100 });
    const connection = await openConnection(dispatcher);
    const limit = maxFrameBytes * REFUSED_FRAMES_PER_RUN;
    let id = 1;
    // Refused requests of every kind count: unknown tools, invalid arguments, malformed frames.
    for (let taken = 0; taken < limit; taken += maxFrameBytes) {
      const response = await send(connection, junk(id, maxFrameBytes));
      expect(response.error?.code).toBe(RpcErrorCode.ToolNotAvailable);
      id += 1;
    }
    const refused = await send(connection, call(id, "echo", { text: "fine" }));
    expect(refused.id).toBe(id);
    expect(refused.error?.code).toBe(RpcErrorCode.RefusalLimit);
    expect(refused.error?.message).toMatch(/^Request refused: this run's refused requests already took \d+ bytes/);
    expect(refused.error?.message).toContain("fix the calls");
    // Not parsed any more: even a frame that is not JSON gets the same answer, with no id to read.
    expect((await send(connection, "{not json")).error?.code).toBe(RpcErrorCode.RefusalLimit);
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("counts each refusal at least its floor, so tiny ones are bounded too", async () => {
    const dispatcher = makeDispatcher({ maxFrameBytes: 1024 });
    const connection = await openConnection(dispatcher);
    let answer;
    let sent = 0;
    do {
      answer = await send(connection, call(sent, "echo", { text: 1 }));
      sent += 1;
    } while (answer.error?.code === RpcErrorCode.InvalidParams && sent < 10_000);
    expect(answer.error?.code).toBe(RpcErrorCode.RefusalLimit);
    expect(sent).toBeLessThan(10_000);
  });

  it("does not count dispatched calls, failed ones included", async () => {
    const dispatcher = makeDispatcher({ maxFrameBytes: 1024, maxToolCalls: 10_000 });
    const connection = await openConnection(dispatcher);
    for (let id = 0; id < 2000; id += 1) expect((await send(connection, call(id, "echo", { text: "a" }))).result).toBe("a");
    expect(dispatcher.toolCallsMade).toBe(2000);
  });

  it("counts failed hellos and frames over the size limit", async () => {
    const maxFrameBytes = 1024;
    const dispatcher = makeDispatcher({ maxFrameBytes });
    const connection = dispatcher.createConnection();
    for (let i = 0; i < REFUSED_FRAMES_PER_RUN / 2; i += 1) {
      connection.rejectOversizedFrame('{"jsonrpc":"2.0","id":1', 10 * maxFrameBytes, maxFrameBytes);
    }
    expect((await send(connection, hello(1, "wrong"))).error?.code).toBe(RpcErrorCode.RefusalLimit);
    expect((await send(connection, frame(2, "nope"))).error?.code).toBe(RpcErrorCode.RefusalLimit);
  });

  it("holds and decodes no request bytes on a byte stream once the budget is spent", async () => {
    const maxFrameBytes = 4096;
    const dispatcher = makeDispatcher({ maxFrameBytes });
    const connection = await openConnection(dispatcher);
    const sent: string[] = [];
    const flow = new CallFlow({
      rpc: connection,
      maxFrameBytes,
      send: (answer) => sent.push(answer),
      pendingBytes: () => 0,
      onWantsInput: () => {},
      end: () => {},
    });
    const encoder = new TextEncoder();
    const { unfinishedFrames } = connection.connectionBudget;
    // A frame arriving in pieces is held until its end while the run still reads requests.
    flow.push(encoder.encode(junk(1, 1000).slice(0, 500)));
    expect(unfinishedFrames.taken).toBe(500);
    flow.push(encoder.encode(`${junk(1, 1000).slice(500)}\n`));
    expect(unfinishedFrames.taken).toBe(0);
    for (let id = 2; !dispatcher.refusals.exhausted; id += 1) flow.push(encoder.encode(`${junk(id, maxFrameBytes)}\n`));
    sent.length = 0;
    // Spent: the next one is skipped as it arrives, and answered with the refusal limit.
    const next = junk(999, 3000);
    flow.push(encoder.encode(next.slice(0, 1500)));
    expect(unfinishedFrames.taken).toBe(0);
    flow.push(encoder.encode(`${next.slice(1500)}\n`));
    expect(sent.map((answer) => decode(answer).error?.code)).toEqual([RpcErrorCode.RefusalLimit]);
    expect(decode(sent[0]!).id).toBe(999);
  });
});
