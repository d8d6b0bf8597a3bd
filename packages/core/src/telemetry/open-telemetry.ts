/**
 * OpenTelemetry, when the application has it. `@opentelemetry/api` is an optional peer dependency:
 * it is imported on the first run that may trace, and when it is not installed (or cannot be
 * imported, as in a runtime without node_modules) nothing is, and runs are not traced. The types
 * here are the part of its API codecall uses, written out so that core's own types never name the
 * package: an application without it still type-checks.
 */

/** The attribute values a span takes. */
export type SpanAttributeValue = string | number | boolean;

/** The part of an OpenTelemetry `Span` codecall uses. */
export interface TelemetrySpan {
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` codecall uses; a `Tracer` from `@opentelemetry/api` is one. */
export interface TelemetryTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Record<string, SpanAttributeValue> }, context?: unknown): TelemetrySpan;
}

/** The part of the `@opentelemetry/api` module codecall uses. */
export interface OpenTelemetryApi {
  trace: {
    getTracer(name: string, version?: string): TelemetryTracer;
    setSpan(context: unknown, span: TelemetrySpan): unknown;
  };
  context: {
    active(): unknown;
    with<T>(context: unknown, fn: () => T): T;
  };
}

/** How a run is traced: `executeCode({ telemetry })`. */
export interface TelemetryOptions {
  /**
   * The tracer to use. Default: `trace.getTracer("@codecall/core")` from `@opentelemetry/api`,
   * i.e. the application's registered tracer provider (none registered: no spans, no cost).
   */
  tracer?: TelemetryTracer;
  /**
   * Record each tool call's arguments (as JSON, secrets masked as in the output, cut at 1 000
   * characters) on its span as `codecall.tool.arguments`. Default false: arguments are the
   * script's data and may hold what it read.
   */
  recordArguments?: boolean;
}

/** The tracer name spans are recorded under. */
export const TRACER_NAME = "@codecall/core";

let loaded: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * `@opentelemetry/api`, or undefined when it cannot be imported. Imported once; `importApi`
 * replaces the import (for tests, and for runtimes that resolve it elsewhere) and is not cached.
 */
export function loadOpenTelemetry(importApi?: () => Promise<unknown>): Promise<OpenTelemetryApi | undefined> {
  if (importApi !== undefined) return importApi().then(asApi, () => undefined);
  return (loaded ??= import("@opentelemetry/api").then(asApi, () => undefined));
}

/** The module if it looks like the API (a stub or an unrelated package of that name is ignored). */
function asApi(module: unknown): OpenTelemetryApi | undefined {
  const api = module as Partial<OpenTelemetryApi> | undefined;
  return typeof api?.trace?.getTracer === "function" && typeof api.context?.with === "function" ? (api as OpenTelemetryApi) : undefined;
}
