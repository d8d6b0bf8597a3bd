/**
 * `describeRunEvents()`: a run watched through its events, end to end on a backend × transport
 * pair — `started` first with the backend and transport, concurrent tool calls each reported as a
 * start before its end, output that adds up to what the result holds, `finished` last; and a
 * consumer far slower than a script printing 100 MB, which must not make the host hold the output.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  defineTool,
  startExecution,
  type Environment,
  type ExecuteCodeResult,
  type Execution,
  type RunEvent,
  type ToolCallEndEvent,
  type ToolCallStartEvent,
  type Transport,
} from "@codecall/core";
import { sampleHostMemory } from "./host-memory.js";
import { describeIntegration } from "./integration.js";

export interface RunEventsSuiteOptions {
  /** Suite title, e.g. "local + uds". */
  name: string;
  /** Makes the environment for the suite (closed after it). */
  createEnvironment: () => Promise<Environment> | Environment;
  /** The transport(s) to run with. */
  transport: () => Transport | readonly Transport[];
  /** The transport id `started` must name. */
  expectTransportId?: string;
  unavailableReason?: string;
  /** Per-test timeout in ms (default 60 s). */
  testTimeoutMs?: number;
}

/** Concurrent calls in the ordering case: each waits until all have started. */
const CONCURRENT_CALLS = 5;

export function describeRunEvents(options: RunEventsSuiteOptions): void {
  describeIntegration(`run events: ${options.name}`, options.unavailableReason, () => {
    const timeout = options.testTimeoutMs ?? 60_000;
    let environment: Environment;

    beforeAll(async () => {
      environment = await options.createEnvironment();
    }, timeout * 2);

    afterAll(async () => {
      await environment?.close();
    }, timeout);

    /** Runs `code` with `startExecution`, handing each event to `consume` (awaited: a slow consumer is slow). */
    async function watch(
      code: string,
      consume: (event: RunEvent, execution: Execution) => unknown,
      tools = [meetTool()],
    ): Promise<ExecuteCodeResult> {
      const execution = startExecution({ code, environment, transport: options.transport(), tools, limits: { timeoutMs: timeout } });
      for await (const event of execution) await consume(event, execution);
      return execution.result;
    }

    it(
      "reports started first, each of concurrent calls' start before its end, the output, and finished last",
      async () => {
        const events: RunEvent[] = [];
        const result = await watch(
          `
import threading
from codecall import meet
print("before", flush=True)
answers = {}
def work(n):
    answers[n] = meet(n)
threads = [threading.Thread(target=work, args=(n,)) for n in range(${CONCURRENT_CALLS})]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(sorted(answers.values()))
`,
          (event) => events.push(event),
        );
        expect(result.status).toBe("success");
        expect(events[0]).toMatchObject({ type: "started", backend: environment.backendId });
        if (options.expectTransportId) expect(events[0]).toMatchObject({ transport: options.expectTransportId });
        expect(events.at(-1)).toEqual({ type: "finished", runId: events[0]!.runId, result });

        const decoder = new TextDecoder();
        const stdout = events.map((event) => (event.type === "stdout" ? decoder.decode(event.chunk, { stream: true }) : "")).join("");
        expect(stdout).toBe(result.output);
        expect(result.output).toBe(`before\n${JSON.stringify(Array.from({ length: CONCURRENT_CALLS }, (_, n) => n * 10)).replaceAll(",", ", ")}\n`);

        const calls = events.filter((event) => event.type === "tool-call-start" || event.type === "tool-call-end");
        // Every call started before any ended: they were in flight together.
        expect(calls.slice(0, CONCURRENT_CALLS).every((event) => event.type === "tool-call-start")).toBe(true);
        const starts = calls.filter((event): event is ToolCallStartEvent => event.type === "tool-call-start");
        const ends = calls.filter((event): event is ToolCallEndEvent => event.type === "tool-call-end");
        expect(starts.map((event) => event.callId).sort()).toEqual(Array.from({ length: CONCURRENT_CALLS }, (_, i) => String(i + 1)));
        for (const start of starts) {
          const end = ends.find((event) => event.callId === start.callId);
          expect(events.indexOf(end!)).toBeGreaterThan(events.indexOf(start));
          expect(end).toMatchObject({ ok: true, outcome: "ok", tool: "meet" });
        }
        // The first line was printed before any call, the last after all of them.
        const firstOutput = events.findIndex((event) => event.type === "stdout");
        expect(firstOutput).toBeLessThan(events.indexOf(starts[0]!));
        const lastOutput = events.findLastIndex((event) => event.type === "stdout");
        expect(lastOutput).toBeGreaterThan(events.indexOf(ends.at(-1)!));
      },
      timeout,
    );

    it(
      "keeps host memory bounded for a slow consumer of 100 MB of output, and says how much it dropped",
      async () => {
        const memory = sampleHostMemory();
        let growth = 0;
        let delivered = 0;
        let dropped = 0;
        let toolEvents = 0;
        const result = await watch(
          `
import sys
from codecall import meet
line = "x" * 1023 + "\\n"
for block in range(100):
    sys.stdout.write(line * 1024)
    if block % 25 == 0:
        meet(0)
print("TAIL-MARK")
`,
          async (event, execution) => {
            // The slowest consumer there is: it reads nothing more until the run is over.
            if (event.type === "started") await execution.result;
            if (event.type === "stdout") delivered += event.chunk.byteLength;
            if (event.type === "output-dropped") dropped += event.bytes;
            if (event.type === "tool-call-start" || event.type === "tool-call-end") toolEvents += 1;
          },
          [meetTool(1)],
        ).finally(() => (growth = memory.stop()));
        // Holding the output for the consumer would take over 100 MB. (The bound is generous: the
        // output's way through the host leaves garbage that a busy machine collects late.)
        expect(growth).toBeLessThan(80 * 1024 * 1024);
        expect(result.status).toBe("success");
        expect(result.stdoutBytesTotal).toBe(100 * 1024 * 1024 + "TAIL-MARK\n".length);
        // Every byte is either delivered or counted as dropped; no tool event is dropped. What was
        // delivered is what the buffer held while the consumer stalled: its bound (1 MiB) and at
        // most one chunk beyond it.
        expect(delivered + dropped).toBe(result.stdoutBytesTotal);
        expect(delivered).toBeLessThanOrEqual(2 * 1024 * 1024);
        expect(toolEvents).toBe(8);
      },
      timeout * 2,
    );
  });
}

/** `meet(n)` returns n * 10 once `count` calls have started (so concurrent calls provably overlap). */
function meetTool(count = CONCURRENT_CALLS) {
  let started = 0;
  let release: () => void = () => {};
  const all = new Promise<void>((resolve) => (release = resolve));
  return defineTool({
    name: "meet",
    description: "Returns n * 10 once every expected call has started.",
    parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
    execute: async ({ n }: { n: number }) => {
      started += 1;
      if (started >= count) release();
      await all;
      return n * 10;
    },
  });
}
