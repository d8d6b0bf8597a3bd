/**
 * The buffer of a run's async iterable: output coalesced while it waits, dropped past the bound
 * with a marker at the place of the gap, every other event kept, and nothing held for a consumer
 * that has left.
 */
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/events.js";
import { EventChannel } from "../src/execute/event-channel.js";

const runId = "r";
const out = (text: string, type: "stdout" | "stderr" = "stdout"): RunEvent => ({ type, runId, chunk: new TextEncoder().encode(text) });
const call = (callId: string): RunEvent => ({ type: "tool-call-start", runId, callId, requestId: 1, tool: "t", arguments: {} });

async function drain(channel: EventChannel): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of channel) events.push(event);
  return events;
}

const describeEvent = (event: RunEvent) => {
  if (event.type === "stdout" || event.type === "stderr") return `${event.type}:${new TextDecoder().decode(event.chunk)}`;
  if (event.type === "output-dropped") return `dropped ${event.stream} ${event.bytes}`;
  return event.type;
};

describe("EventChannel", () => {
  it("coalesces consecutive output of one stream while it waits, keeping order across streams and events", async () => {
    const channel = new EventChannel();
    for (const event of [out("a"), out("b"), out("x", "stderr"), out("c"), call("1"), out("d"), out("e")]) channel.push(event);
    channel.close();
    expect((await drain(channel)).map(describeEvent)).toEqual(["stdout:ab", "stderr:x", "stdout:c", "tool-call-start", "stdout:de"]);
  });

  it("delivers events as they come to a consumer that keeps up", async () => {
    const channel = new EventChannel();
    const iterator = channel[Symbol.asyncIterator]();
    const first = iterator.next();
    channel.push(out("live"));
    expect(describeEvent((await first).value as RunEvent)).toBe("stdout:live");
    channel.close();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("holds at most its bound of output for a consumer that does not read, and says exactly how much it dropped", async () => {
    const channel = new EventChannel({ maxOutputBytes: 1000 });
    const chunk = "y".repeat(100);
    for (let i = 0; i < 100_000; i += 1) {
      channel.push(out(chunk));
      if (i % 10_000 === 0) channel.push(call(String(i)));
      expect(channel.bufferedOutputBytes).toBeLessThanOrEqual(1000);
    }
    channel.close();
    const events = await drain(channel);
    const kept = events.reduce((sum, event) => sum + (event.type === "stdout" ? event.chunk.byteLength : 0), 0);
    const dropped = events.filter((event) => event.type === "output-dropped").reduce((sum, event) => sum + event.bytes, 0);
    expect(kept + dropped).toBe(100 * 100_000);
    expect(kept).toBeLessThanOrEqual(1000);
    // Tool events are never dropped, and stay in their places.
    expect(events.filter((event) => event.type === "tool-call-start").map((event) => (event as { callId: string }).callId)).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i * 10_000)),
    );
    expect(events.length).toBeLessThan(40);
  });

  it("puts the drop marker where the gap is, and takes output again once the consumer catches up", async () => {
    const channel = new EventChannel({ maxOutputBytes: 4 });
    const iterator = channel[Symbol.asyncIterator]();
    channel.push(out("1234"));
    channel.push(out("lost"));
    channel.push(out("also"));
    expect(describeEvent((await iterator.next()).value as RunEvent)).toBe("stdout:1234");
    expect(describeEvent((await iterator.next()).value as RunEvent)).toBe("dropped stdout 8");
    channel.push(out("back"));
    channel.close();
    expect(describeEvent((await iterator.next()).value as RunEvent)).toBe("stdout:back");
    expect((await iterator.next()).done).toBe(true);
  });

  it("bounds the number of waiting output events too (one-byte chunks of alternating streams)", async () => {
    const channel = new EventChannel({ maxOutputEvents: 10 });
    for (let i = 0; i < 10_000; i += 1) channel.push(out("z", i % 2 === 0 ? "stdout" : "stderr"));
    channel.close();
    const events = await drain(channel);
    expect(events.length).toBeLessThanOrEqual(12);
    const total = events.reduce(
      (sum, event) => sum + (event.type === "output-dropped" ? event.bytes : "chunk" in event ? event.chunk.byteLength : 0),
      0,
    );
    expect(total).toBe(10_000);
  });

  it("holds nothing more once the consumer has left, and can be iterated once", async () => {
    const channel = new EventChannel();
    channel.push(out("a"));
    for await (const event of channel) {
      expect(describeEvent(event)).toBe("stdout:a");
      break;
    }
    channel.push(out("b"));
    channel.push(call("1"));
    expect(channel.bufferedOutputBytes).toBe(0);
    expect(() => channel[Symbol.asyncIterator]()).toThrow(TypeError);
  });
});
