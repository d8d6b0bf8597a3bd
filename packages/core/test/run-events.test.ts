/**
 * The events of a run on the in-memory pair: their order with concurrent tool calls, the older
 * callbacks as views of them, `startExecution` as an async iterable, and output redacted in the
 * events as in the result, also when a secret is split across chunks.
 */
import { describe, expect, it } from "vitest";
import type { RunEvent, RunOutputEvent, ToolCallEndEvent, ToolCallStartEvent } from "../src/events.js";
import { startExecution } from "../src/execute/start-execution.js";
import type { ToolCallEvent } from "../src/rpc/dispatcher.js";
import type { ToolDefinition } from "../src/tool.js";
import { useMemoryRuns } from "./support/memory-runs.js";
import { deferred } from "./support/rpc.js";

const { pair, execute, run } = useMemoryRuns();

/** A tool whose calls all wait until `count` of them have started: proof that they overlapped. */
function barrierTool(count: number): ToolDefinition<{ n: number }> {
  let started = 0;
  const all = deferred();
  return {
    name: "meet",
    description: "Waits for the others.",
    parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: async ({ n }) => {
      started += 1;
      if (started === count) all.resolve();
      await all.promise;
      if (n === 3) throw new Error("three fails");
      return n * 10;
    },
  };
}

const guarded: ToolDefinition = {
  name: "guarded",
  description: "Needs approval.",
  parameters: { type: "object" },
  needsApproval: true,
  execute: () => "guarded ran",
};

/** The output events of one stream. */
const outputOf = (events: RunEvent[], stream: "stdout" | "stderr") => events.filter((event): event is RunOutputEvent => event.type === stream);

const decoder = () => {
  const textDecoder = new TextDecoder();
  return (chunk: Uint8Array) => textDecoder.decode(chunk, { stream: true });
};

describe("run events", () => {
  it("come in order for a run with concurrent tool calls: started, output and calls as they happen, finished last", async () => {
    const events: RunEvent[] = [];
    const result = await run(
      async (script) => {
        script.print("before");
        const codecall = await script.importModule();
        const answers = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => codecall.call("meet", { n })));
        script.print(answers.map((answer) => (answer.status === "fulfilled" ? String(answer.value) : "error")).join(" "));
        script.print(String(await codecall.call("guarded", {})));
        script.printError("to stderr");
      },
      { tools: [barrierTool(5), guarded], onEvent: (event) => events.push(event), onApproval: () => true },
    );
    expect(result.status).toBe("success");
    const runId = events[0]!.runId;
    expect(events[0]).toEqual({ type: "started", runId, backend: "memory", transport: "memory" });
    expect(events.at(-1)).toEqual({ type: "finished", runId, result });
    expect(events.every((event) => event.runId === runId)).toBe(true);

    const read = decoder();
    const stdout = outputOf(events, "stdout").map((event) => read(event.chunk));
    expect(stdout.join("")).toBe(result.output);
    // The live redaction may cut a chunk at whitespace (a secret cannot span it): joined, they are the text.
    const stderr = outputOf(events, "stderr").map((event) => new TextDecoder().decode(event.chunk));
    expect(stderr.join("")).toBe("to stderr");

    const calls = events.filter((event) => event.type.startsWith("tool-call") || event.type.startsWith("approval"));
    const starts = calls.filter((event): event is ToolCallStartEvent => event.type === "tool-call-start");
    const ends = calls.filter((event): event is ToolCallEndEvent => event.type === "tool-call-end");
    expect(starts.map((event) => event.callId).sort()).toEqual(["1", "2", "3", "4", "5", "6"]);
    // The five meet calls all started before any ended: they ran at once.
    expect(calls.slice(0, 5).every((event) => event.type === "tool-call-start" && event.tool === "meet")).toBe(true);
    for (const start of starts) {
      const order = events.filter((event) => "callId" in event && event.callId === start.callId).map((event) => event.type);
      expect(order).toEqual(
        start.tool === "guarded"
          ? ["tool-call-start", "approval-requested", "approval-decided", "tool-call-end"]
          : ["tool-call-start", "tool-call-end"],
      );
    }
    const byArgument = new Map(starts.map((start) => [start.callId, start.arguments.n]));
    for (const end of ends) {
      expect(end.durationMs).toBeGreaterThanOrEqual(0);
      if (byArgument.get(end.callId) === 3) expect(end).toMatchObject({ ok: false, outcome: "failed", error: "three fails" });
      else expect(end).toMatchObject({ ok: true, outcome: "ok" });
    }
    expect(ends.find((end) => end.tool === "guarded")).toMatchObject({ ok: true, approvalWaitMs: expect.any(Number) as number });
    // Output printed after the calls comes after their ends.
    const lastEnd = events.lastIndexOf(ends.at(-1)!);
    const stderrAt = events.findIndex((event) => event.type === "stderr");
    expect(stderrAt).toBeGreaterThan(lastEnd);
  });

  it("feeds the older callbacks from the same events", async () => {
    const events: RunEvent[] = [];
    const legacy: ToolCallEvent[] = [];
    const stdout: Uint8Array[] = [];
    const stderr: Uint8Array[] = [];
    await run(
      async (script) => {
        const codecall = await script.importModule();
        script.print(String(await codecall.call("meet", { n: 1 })));
        script.printError("e");
      },
      {
        tools: [barrierTool(1)],
        onEvent: (event) => events.push(event),
        onToolCall: (event) => legacy.push(event),
        onStdout: (chunk) => stdout.push(chunk),
        onStderr: (chunk) => stderr.push(chunk),
      },
    );
    expect(stdout).toEqual(outputOf(events, "stdout").map((event) => event.chunk));
    expect(stderr).toEqual(outputOf(events, "stderr").map((event) => event.chunk));
    const end = events.find((event): event is ToolCallEndEvent => event.type === "tool-call-end")!;
    expect(legacy).toEqual([
      { phase: "start", id: 1, name: "meet", arguments: { n: 1 } },
      { phase: "end", id: 1, name: "meet", ok: true, durationMs: end.durationMs },
    ]);
  });

  it("ends with finished alone when there is no script to run", async () => {
    const events: RunEvent[] = [];
    const result = await run(() => {}, { code: "  ", onEvent: (event) => events.push(event) });
    expect(events).toEqual([{ type: "finished", runId: expect.any(String) as string, result }]);
  });

  it("reports the end of calls cancelled by a timeout before finished", async () => {
    const events: RunEvent[] = [];
    const hang: ToolDefinition = { name: "hang", description: "Hangs.", parameters: { type: "object" }, execute: () => new Promise(() => {}) };
    const result = await run(
      async (script) => {
        const codecall = await script.importModule();
        void codecall.call("hang", {}).catch(() => {});
        await new Promise<never>(() => {});
      },
      { tools: [hang], limits: { timeoutMs: 100, killGraceMs: 5 }, onEvent: (event) => events.push(event) },
    );
    expect(result.status).toBe("timeout");
    expect(events.map((event) => event.type)).toEqual(["started", "tool-call-start", "tool-call-end", "finished"]);
    expect(events[2]).toMatchObject({ outcome: "cancelled", error: "Tool call cancelled: the script timed out" });
  });

  it("masks secrets in output events as in the result, also when a secret is split across chunks", async () => {
    const secret = "sk-codecall-event-secret-0123456789";
    const memory = pair((script) => {
      const parts = [`token ${secret.slice(0, 7)}`, secret.slice(7, 20), `${secret.slice(20)} end\n`];
      for (const part of parts) script.printError(part);
    });
    const split: RunEvent[] = [];
    const splitResult = await execute(memory, { env: { host: { SERVICE_API_KEY: secret } }, onEvent: (event) => split.push(event) });
    const read = decoder();
    const streamed = outputOf(split, "stderr").map((event) => read(event.chunk));
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.join("")).not.toContain(secret.slice(0, 12));
    expect(streamed.join("")).toBe(splitResult.stderr);
  });
});

describe("startExecution", () => {
  it("gives the events as an async iterable beside the result", async () => {
    const memory = pair(async (script) => {
      script.print("one");
      const codecall = await script.importModule();
      await codecall.call("meet", { n: 2 });
      script.print("two");
    });
    const execution = startExecution({
      code: "x",
      environment: memory.environment,
      transport: memory.transport,
      env: { host: {} },
      tools: [barrierTool(1)],
    });
    const seen: RunEvent[] = [];
    for await (const event of execution) seen.push(event);
    const result = await execution.result;
    expect(seen.map((event) => event.type)).toEqual(["started", "stdout", "tool-call-start", "tool-call-end", "stdout", "finished"]);
    expect(seen.at(-1)).toEqual({ type: "finished", runId: execution.runId, result });
    expect(() => execution[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });

  it("runs to its end when the consumer stops early, or never starts", async () => {
    const memory = pair((script) => {
      for (let i = 0; i < 5; i += 1) script.print(`line ${i}`);
    });
    const options = { code: "x", environment: memory.environment, transport: memory.transport, env: { host: {} } };
    const execution = startExecution(options);
    for await (const event of execution) {
      expect(event.type).toBe("started");
      break;
    }
    await expect(execution.result).resolves.toMatchObject({ status: "success", output: "line 0\nline 1\nline 2\nline 3\nline 4\n" });
    const unread = startExecution(options);
    await expect(unread.result).resolves.toMatchObject({ status: "success" });
  });

  it("throws at once for invalid options", () => {
    const memory = pair(() => {});
    expect(() => startExecution({ code: "x", environment: memory.environment, transport: memory.transport, limits: { timeoutMs: -1 } })).toThrow(
      /timeoutMs/,
    );
  });
});
