import { describe, expect, it, vi } from "vitest";
import { CallFlow } from "../src/protocol/call-flow.js";
import { defineTool } from "../src/define-tool.js";
import { call, decode, makeDispatcher, openConnection } from "./support/rpc.js";

const encoder = new TextEncoder();

/** A flow over a connection whose "socket" the test drains by hand; `gate` calls wait for the test. */
async function staged(options: { maxRunning?: number; maxPendingBytes?: number } = {}) {
  const gates: (() => void)[] = [];
  const gate = defineTool({
    name: "gate",
    description: "Returns its text once the test opens it.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => new Promise<string>((resolve) => gates.push(() => resolve(text))),
  });
  const dispatcher = makeDispatcher({ tools: [gate], maxToolCalls: 1000 });
  const sent: string[] = [];
  let pending = 0;
  let wantsInput = 0;
  const flow = new CallFlow({
    rpc: await openConnection(dispatcher),
    maxFrameBytes: 1 << 20,
    send: (answer) => {
      sent.push(answer);
      pending += answer.length;
    },
    pendingBytes: () => pending,
    onWantsInput: () => (wantsInput += 1),
    end: () => {},
    ...options,
  });
  const deliver = () => {
    pending = 0;
    flow.pump();
  };
  return { flow, gates, sent, deliver, wantsInput: () => wantsInput };
}

const calls = (from: number, count: number, text = "x") =>
  encoder.encode(Array.from({ length: count }, (_, i) => `${call(from + i, "gate", { text })}\n`).join(""));

describe("CallFlow", () => {
  it("runs at most maxRunning calls, holds the rest, and asks for input once they all started", async () => {
    const { flow, gates, sent, wantsInput } = await staged({ maxRunning: 3 });
    flow.push(calls(1, 10));
    await vi.waitFor(() => expect(gates).toHaveLength(3));
    expect(flow.wantsInput).toBe(false);
    for (let opened = 0; opened < 10; opened += 1) {
      await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0));
      expect(flow.running).toBeLessThanOrEqual(3);
      gates.shift()!();
    }
    await vi.waitFor(() => expect(sent).toHaveLength(10));
    expect(flow.wantsInput).toBe(true);
    expect(wantsInput()).toBe(1);
    expect(new Set(sent.map((answer) => decode(answer).id))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => i + 1)));
  });

  it("starts no call while maxPendingBytes of answers wait undelivered, and goes on once they are", async () => {
    const { flow, gates, sent, deliver } = await staged({ maxPendingBytes: 1000 });
    flow.push(calls(1, 5, "y".repeat(2000)));
    await vi.waitFor(() => expect(gates).toHaveLength(5));
    gates.splice(0).forEach((open) => open());
    await vi.waitFor(() => expect(sent).toHaveLength(5));
    // 10 KB of answers wait: these five calls must not start until they are delivered.
    flow.push(calls(6, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gates).toHaveLength(0);
    expect(flow.wantsInput).toBe(false);
    deliver();
    await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0));
    while (sent.length < 10) {
      gates.splice(0).forEach((open) => open());
      await new Promise((resolve) => setTimeout(resolve, 1));
      deliver();
    }
    expect(flow.wantsInput).toBe(true);
  });

  it("drops queued calls and running calls' answers once closed", async () => {
    const { flow, gates, sent } = await staged({ maxRunning: 1 });
    flow.push(calls(1, 3));
    await vi.waitFor(() => expect(gates).toHaveLength(1));
    flow.close();
    gates.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toEqual([]);
    expect(gates).toHaveLength(0);
  });

  it("sends the answer of a tool that answers synchronously before push returns, in request order", async () => {
    const events: string[] = [];
    const echo = defineTool({
      name: "echo",
      description: "Returns its text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: ({ text }: { text: string }) => text,
    });
    const dispatcher = makeDispatcher({ tools: [echo], maxToolCalls: 10, onEvent: (event) => events.push(event.type) });
    const sent: string[] = [];
    const flow = new CallFlow({
      rpc: await openConnection(dispatcher),
      maxFrameBytes: 1 << 20,
      send: (answer) => sent.push(answer),
      pendingBytes: () => 0,
      onWantsInput: () => {},
      end: () => {},
    });
    flow.push(encoder.encode(`${call(1, "echo", { text: "a" })}\n${call(2, "echo", {})}\n${call(3, "echo", { text: "c" })}\n`));
    // No await: nothing had to wait, so nothing was left for a later microtask.
    expect(sent.map((answer) => decode(answer).id)).toEqual([1, 2, 3]);
    expect(decode(sent[0]!).result).toBe("a");
    expect(decode(sent[1]!).error?.code).toBe(-32602);
    expect(flow.running).toBe(0);
    expect(flow.wantsInput).toBe(true);
    expect(events).toEqual(["tool-call-start", "tool-call-end", "tool-call-start", "tool-call-end"]);
  });
});

describe("CallFlow: what all of a run's connections hold", () => {
  /** A flow on `dispatcher` whose sends and end the test reads. */
  async function flowOn(dispatcher: ReturnType<typeof makeDispatcher>, maxFrameBytes = 1 << 20) {
    const sent: string[] = [];
    let ended = 0;
    const flow = new CallFlow({
      rpc: await openConnection(dispatcher),
      maxFrameBytes,
      send: (answer) => sent.push(answer),
      pendingBytes: () => 0,
      onWantsInput: () => {},
      end: () => (ended += 1),
    });
    return { flow, sent, ended: () => ended };
  }

  it("refuses a connection over the run's limit at once, with an answer, and admits one again when another closes", async () => {
    const dispatcher = makeDispatcher({ maxConnections: 2 });
    const first = await flowOn(dispatcher);
    const second = await flowOn(dispatcher);
    const third = await flowOn(dispatcher);
    expect([first.ended(), second.ended()]).toEqual([0, 0]);
    // Refused before it sent anything: a connection that never speaks holds nothing either.
    expect(third.ended()).toBe(1);
    expect(third.sent).toHaveLength(1);
    const refusal = decode(third.sent[0]!);
    expect(refusal.id).toBeNull();
    expect(refusal.error?.code).toBe(-32600);
    expect(refusal.error?.message).toContain("Connection refused: this run already has 2 connections");
    third.flow.push(encoder.encode(`${call(1, "echo", { text: "ignored" })}\n`));
    expect(third.sent).toHaveLength(1);
    expect(dispatcher.toolCallsMade).toBe(0);

    first.flow.close();
    first.flow.close();
    const fourth = await flowOn(dispatcher);
    expect(fourth.ended()).toBe(0);
    fourth.flow.push(encoder.encode(`${call(1, "echo", { text: "served" })}\n`));
    expect(fourth.sent.map((answer) => decode(answer).result)).toEqual(["served"]);
  });

  it("bounds the unfinished frames of all the run's connections together, and gives their bytes back", async () => {
    // A run budget of 4 frames of 1000 bytes; five connections each hold most of a frame.
    const dispatcher = makeDispatcher({ maxFrameBytes: 1000, maxToolCalls: 100 });
    const flows = await Promise.all(Array.from({ length: 5 }, () => flowOn(dispatcher, 1000)));
    const start = (id: number) => encoder.encode(call(id, "echo", { text: "x".repeat(850) }).slice(0, -3));
    flows.forEach(({ flow }, index) => flow.push(start(index + 1)));
    expect(dispatcher.connectionBudget.unfinishedFrames.taken).toBeLessThanOrEqual(4000);
    flows.forEach(({ flow }) => flow.push(encoder.encode("}}}\n")));
    const answers = flows.map(({ sent }) => decode(sent[0]!));
    expect(answers.slice(0, 4).map((answer) => answer.result)).toEqual(Array.from({ length: 4 }, () => "x".repeat(850)));
    expect(answers[4]?.id).toBe(5);
    expect(answers[4]?.error?.code).toBe(-32006);
    expect(answers[4]?.error?.message).toContain("Request refused: the run's connections already held 4000 bytes of unfinished requests");
    expect(dispatcher.connectionBudget.unfinishedFrames.taken).toBe(0);

    // Room again: the refused connection is served, and a closed one gives back what it held.
    flows[4]!.flow.push(encoder.encode(`${call(6, "echo", { text: "again" })}\n`));
    expect(decode(flows[4]!.sent[1]!).result).toBe("again");
    flows[0]!.flow.push(start(7));
    expect(dispatcher.connectionBudget.unfinishedFrames.taken).toBeGreaterThan(0);
    flows[0]!.flow.close();
    expect(dispatcher.connectionBudget.unfinishedFrames.taken).toBe(0);
  });
});
