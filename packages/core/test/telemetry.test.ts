/**
 * OpenTelemetry spans of a run, recorded by the SDK's in-memory exporter with the async-hooks
 * context manager: a run span under the caller's active span, a span per tool call under it (the
 * tool's own spans under that), outcomes and approval waits as attributes, and no argument values.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { context, trace, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadOpenTelemetry } from "../src/telemetry/open-telemetry.js";
import type { ToolDefinition } from "../src/tool.js";
import { useMemoryRuns } from "./support/memory-runs.js";

const { run } = useMemoryRuns();

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

/** A value that must never show up in a span. */
const SECRET_ARGUMENT = "argument-value-that-stays-out-of-spans";

const lookup: ToolDefinition<{ q: string }> = {
  name: "lookup",
  description: "Looks up.",
  parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  execute: ({ q }) => {
    // The tool's own span: it must nest under its call's span.
    trace.getTracer("tool").startSpan("lookup-backend-request").end();
    if (q === "fail") throw new Error(`cannot look up ${SECRET_ARGUMENT}`);
    return "found";
  },
};
const guarded: ToolDefinition<{ q: string }> = {
  name: "guarded",
  description: "Needs approval.",
  parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  needsApproval: true,
  execute: () => "guarded ran",
};

async function scriptCalling(calls: [string, Record<string, unknown>][]) {
  return run(
    async (script) => {
      const codecall = await script.importModule();
      for (const [name, args] of calls) await codecall.call(name, args).catch(() => {});
    },
    {
      tools: [lookup, guarded],
      onApproval: async ({ args }) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return args.q === "yes" ? "approve" : { type: "deny", reason: "no" };
      },
    },
  );
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("OpenTelemetry spans", () => {
  it("records a run span under the caller's span and a child span per tool call, with outcomes and approval waits", async () => {
    const outer = trace.getTracer("test");
    const result = await outer.startActiveSpan("agent-turn", async (turn: Span) => {
      try {
        return await scriptCalling([
          ["lookup", { q: SECRET_ARGUMENT }],
          ["lookup", { q: "fail" }],
          ["guarded", { q: "yes" }],
          ["guarded", { q: SECRET_ARGUMENT }],
        ]);
      } finally {
        turn.end();
      }
    });
    expect(result.status).toBe("success");
    const spans = exporter.getFinishedSpans();
    const [turn] = byName(spans, "agent-turn");
    const [runSpan] = byName(spans, "codecall.run");
    expect(runSpan).toBeDefined();
    expect(parentOf(runSpan!)).toBe(turn!.spanContext().spanId);
    expect(runSpan!.attributes).toMatchObject({
      "codecall.backend": "memory",
      "codecall.transport": "memory",
      "codecall.status": "success",
      "codecall.tool_calls": 4,
      "codecall.exit_code": 0,
    });
    expect(runSpan!.status.code).toBe(1);

    const toolSpans = spans.filter((span) => span.name.startsWith("execute_tool "));
    expect(toolSpans.map((span) => span.name)).toEqual([
      "execute_tool lookup",
      "execute_tool lookup",
      "execute_tool guarded",
      "execute_tool guarded",
    ]);
    for (const span of toolSpans) expect(parentOf(span)).toBe(runSpan!.spanContext().spanId);
    expect(toolSpans.map((span) => [span.attributes["gen_ai.tool.call.id"], span.attributes["codecall.tool.outcome"], span.status.code])).toEqual([
      ["1", "ok", 1],
      ["2", "failed", 2],
      ["3", "ok", 1],
      ["4", "denied", 2],
    ]);
    expect(toolSpans[0]!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup" });
    expect(toolSpans[0]!.attributes["codecall.approval.required"]).toBeUndefined();
    for (const span of toolSpans.slice(2)) {
      expect(span.attributes).toMatchObject({ "codecall.approval.required": true, "codecall.approval.decided_by": "handler" });
      expect(span.attributes["codecall.approval.wait_ms"]).toBeGreaterThanOrEqual(20);
    }
    expect(toolSpans[3]!.attributes["codecall.approval.decision"]).toBe("deny");

    // The tool's own spans nest under the span of the call that made them.
    const inner = byName(spans, "lookup-backend-request");
    expect(inner.map(parentOf)).toEqual([toolSpans[0]!.spanContext().spanId, toolSpans[1]!.spanContext().spanId]);

    // Never an argument value, also not through an error message.
    const everything = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.status, span.events]));
    expect(everything).not.toContain(SECRET_ARGUMENT);
  });

  it("marks a run that did not succeed as an error", async () => {
    const result = await run(() => 3, {});
    expect(result.status).toBe("error");
    const [runSpan] = byName(exporter.getFinishedSpans(), "codecall.run");
    expect(runSpan!.status.code).toBe(2);
    expect(runSpan!.attributes).toMatchObject({ "codecall.status": "error", "error.type": "error", "codecall.exit_code": 3 });
  });

  it("records arguments only when asked, secrets masked", async () => {
    const secret = "sk-codecall-span-secret-0123456789";
    await run(
      async (script) => {
        const codecall = await script.importModule();
        await codecall.call("lookup", { q: `token ${secret}` });
      },
      { tools: [lookup], env: { host: { SERVICE_API_KEY: secret } }, telemetry: { recordArguments: true } },
    );
    const [span] = byName(exporter.getFinishedSpans(), "execute_tool lookup");
    const recorded = String(span!.attributes["codecall.tool.arguments"]);
    expect(recorded).toContain("token ");
    expect(recorded).not.toContain(secret);
  });

  it("uses the tracer it is given, and records nothing with telemetry off", async () => {
    const own = new InMemorySpanExporter();
    const ownProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] });
    await run(() => {}, { telemetry: { tracer: ownProvider.getTracer("mine") } });
    expect(own.getFinishedSpans().map((span) => span.name)).toEqual(["codecall.run"]);
    expect(exporter.getFinishedSpans()).toEqual([]);
    await run(() => {}, { telemetry: false });
    expect(exporter.getFinishedSpans()).toEqual([]);
    await ownProvider.shutdown();
  });
});

describe("without @opentelemetry/api", () => {
  it("loads nothing when the package cannot be imported, or is not the API", async () => {
    await expect(loadOpenTelemetry(() => Promise.reject(new Error("Cannot find package '@opentelemetry/api'")))).resolves.toBeUndefined();
    await expect(loadOpenTelemetry(() => Promise.resolve({ trace: {} }))).resolves.toBeUndefined();
    await expect(loadOpenTelemetry(() => import("@opentelemetry/api"))).resolves.toMatchObject({ trace: expect.anything() as unknown });
  });

  it("is imported only dynamically: no source file of core imports it statically", async () => {
    const sourceDir = path.resolve(import.meta.dirname, "../src");
    const files = (await readdir(sourceDir, { recursive: true })).filter((file) => file.endsWith(".ts"));
    const importers: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(sourceDir, file), "utf8");
      if (/from\s+["']@opentelemetry\//.test(text) || /require\(["']@opentelemetry\//.test(text)) importers.push(file);
      if (text.includes('import("@opentelemetry/api")')) expect(file).toBe(path.join("telemetry", "open-telemetry.ts"));
    }
    expect(importers).toEqual([]);
  });
});
