/**
 * The spans of one run, built from its events: a `codecall.run` span for the run (a child of the
 * span active where `executeCode` was called), and an `execute_tool <name>` span for each
 * dispatched tool call, a child of the run's. A tool's `execute` runs inside its call's span, so
 * the spans the tool makes itself (an HTTP request, a query) nest under it; the run's steps run
 * inside the run span. Spans carry names, ids, durations, outcomes and approval waits — never
 * argument values, unless `recordArguments` asks for them.
 */
import { describeValue } from "../text/describe-value.js";
import { redactSecrets } from "../text/redact.js";
import type { RunEvent, ToolCallStartEvent } from "../events.js";
import { TRACER_NAME, type OpenTelemetryApi, type TelemetryOptions, type TelemetrySpan, type TelemetryTracer } from "./open-telemetry.js";

/** `SpanStatusCode` and `SpanKind` values of the OpenTelemetry API (stable numbers of its spec). */
const STATUS_OK = 1;
const STATUS_ERROR = 2;
const KIND_INTERNAL = 0;

/** Longest recorded arguments text, when arguments are recorded. */
const MAX_ARGUMENTS_CHARS = 1_000;

export interface RunTracingOptions extends TelemetryOptions {
  runId: string;
}

export class RunTracing {
  readonly #api: OpenTelemetryApi;
  readonly #options: RunTracingOptions;
  readonly #tracer: TelemetryTracer;
  readonly #runSpan: TelemetrySpan;
  readonly #runContext: unknown;
  readonly #toolSpans = new Map<string, { span: TelemetrySpan; context: unknown }>();
  /** Values masked in recorded arguments; undefined: redaction is off. */
  #knownSecrets: readonly string[] | undefined = [];

  /** Starts the run span, a child of the active span. */
  constructor(api: OpenTelemetryApi, options: RunTracingOptions) {
    this.#api = api;
    this.#options = options;
    this.#tracer = options.tracer ?? api.trace.getTracer(TRACER_NAME);
    const parent = api.context.active();
    this.#runSpan = this.#tracer.startSpan("codecall.run", { kind: KIND_INTERNAL, attributes: { "codecall.run.id": options.runId } }, parent);
    this.#runContext = api.trace.setSpan(parent, this.#runSpan);
  }

  /** The secrets to mask in recorded arguments, once the run's env is known (undefined: redaction off). */
  maskSecrets(knownSecrets: readonly string[] | undefined): void {
    this.#knownSecrets = knownSecrets;
  }

  /** Runs the run's steps inside the run span's context. */
  around<T>(steps: () => Promise<T>): Promise<T> {
    return this.#api.context.with(this.#runContext, steps);
  }

  /** Runs a tool's `execute` inside its call's span (and returns what it returns, a promise or not). */
  runTool<T>(call: ToolCallStartEvent, execute: () => T): T {
    const tool = this.#toolSpans.get(call.callId);
    return tool === undefined ? execute() : this.#api.context.with(tool.context, execute);
  }

  /** Turns one event into span work (bound: the observer passes it on as it is). */
  readonly onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case "started":
        this.#runSpan.setAttribute("codecall.backend", event.backend);
        this.#runSpan.setAttribute("codecall.transport", event.transport);
        return;
      case "tool-call-start":
        return this.#startTool(event);
      case "approval-requested":
        this.#toolSpans.get(event.callId)?.span.setAttribute("codecall.approval.required", true);
        return;
      case "approval-decided": {
        const span = this.#toolSpans.get(event.callId)?.span;
        span?.setAttribute("codecall.approval.decision", event.decision);
        span?.setAttribute("codecall.approval.decided_by", event.decidedBy);
        span?.setAttribute("codecall.approval.wait_ms", Math.round(event.waitMs));
        return;
      }
      case "tool-call-end": {
        const tool = this.#toolSpans.get(event.callId);
        if (tool === undefined) return;
        this.#toolSpans.delete(event.callId);
        tool.span.setAttribute("codecall.tool.outcome", event.outcome);
        tool.span.setAttribute("codecall.tool.duration_ms", Math.round(event.durationMs));
        // The status names the outcome, not the error message: a tool's message may quote its arguments.
        if (event.ok) tool.span.setStatus({ code: STATUS_OK });
        else {
          tool.span.setAttribute("error.type", event.outcome);
          tool.span.setStatus({ code: STATUS_ERROR, message: `tool call ${event.outcome}` });
        }
        tool.span.end();
        return;
      }
      case "finished": {
        const { result } = event;
        const span = this.#runSpan;
        span.setAttribute("codecall.status", result.status);
        span.setAttribute("codecall.backend", result.backend);
        span.setAttribute("codecall.transport", result.transport);
        span.setAttribute("codecall.tool_calls", result.toolCallsMade);
        span.setAttribute("codecall.stdout.bytes", result.stdoutBytesTotal);
        span.setAttribute("codecall.stdout.truncated", result.stdoutTruncated);
        if (result.exitCode !== null) span.setAttribute("codecall.exit_code", result.exitCode);
        if (result.status === "success") span.setStatus({ code: STATUS_OK });
        else {
          span.setAttribute("error.type", result.status);
          span.setStatus({ code: STATUS_ERROR, message: `script ${result.status}` });
        }
        span.end();
        return;
      }
      default:
        return;
    }
  };

  /** Ends every open span as failed: the run ended without a result (a defect, reported by its throw). */
  abandon(): void {
    for (const { span } of this.#toolSpans.values()) span.end();
    this.#toolSpans.clear();
    this.#runSpan.setStatus({ code: STATUS_ERROR, message: "the run failed without a result" });
    this.#runSpan.end();
  }

  #startTool(event: ToolCallStartEvent): void {
    const attributes: Record<string, string | number | boolean> = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": event.tool,
      "gen_ai.tool.call.id": event.callId,
      "gen_ai.tool.type": "function",
      "codecall.run.id": event.runId,
    };
    if (this.#options.recordArguments) attributes["codecall.tool.arguments"] = this.#describeArguments(event.arguments);
    const span = this.#tracer.startSpan(`execute_tool ${event.tool}`, { kind: KIND_INTERNAL, attributes }, this.#runContext);
    this.#toolSpans.set(event.callId, { span, context: this.#api.trace.setSpan(this.#runContext, span) });
  }

  #describeArguments(args: unknown): string {
    const text = describeValue(args, { maxLength: MAX_ARGUMENTS_CHARS });
    const knownSecrets = this.#knownSecrets;
    return knownSecrets === undefined ? text : redactSecrets(text, { knownSecrets });
  }
}
