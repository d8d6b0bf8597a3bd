import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../approval.js";
import { CodecallError } from "../errors.js";
import { DEFAULT_MAX_JSON_DEPTH } from "../protocol/json-measure.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../protocol/messages.js";
import { DEFAULT_MAX_TOOL_CALLS } from "../rpc/dispatcher.js";

/** The bounds of one execution (defaults follow the field's reference implementation). */
export interface ExecutionLimits {
  /** Wall time of the script; then SIGTERM to its tree, SIGKILL after `killGraceMs`. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Stdout kept (head 40 % + tail 60 %). */
  maxStdoutBytes: number;
  /**
   * Stdout over `maxStdoutBytes` is saved whole, up to this many bytes, to a file in the
   * environment that the truncation notice names (see `spill-output.ts`); `0` turns it off.
   * Streamed into the file as it comes where the environment can (`openFileWriter`); host memory
   * per run stays within this plus `maxStdoutBytes` either way.
   */
  spillBytes: number;
  /** Stderr kept (shown when the script fails). */
  maxStderrBytes: number;
  /** Dispatched tool calls allowed. */
  maxToolCalls: number;
  /** Largest RPC frame, both ways: a larger request or tool result gets an error answer. */
  maxFrameBytes: number;
  /** Deepest nesting (arrays/objects) of a tool's arguments or result; deeper gets an error answer. */
  maxJsonDepth: number;
}

export const DEFAULT_LIMITS: Readonly<ExecutionLimits> = Object.freeze({
  timeoutMs: 300_000,
  killGraceMs: 5_000,
  maxStdoutBytes: 50_000,
  spillBytes: 5_000_000,
  maxStderrBytes: 10_000,
  maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
});

/**
 * The longest duration a limit may hold: 365 days. Longer runs are not what an execution limit is
 * for, and a bound keeps every derived value (the in-environment backstop, seconds for `timeout`)
 * an ordinary integer.
 */
export const MAX_DURATION_MS = 365 * 24 * 60 * 60 * 1000;

/** The limits that are durations (milliseconds), bounded by {@link MAX_DURATION_MS}. */
const DURATIONS: ReadonlySet<keyof ExecutionLimits> = new Set(["timeoutMs", "killGraceMs"]);

/** Fills in defaults and rejects nonsense (non-numbers, negative, fractional, NaN, absurdly long). */
export function resolveLimits(overrides: Partial<ExecutionLimits> = {}): ExecutionLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides) as [keyof ExecutionLimits, unknown][]) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, name)) throw new CodecallError("INVALID_OPTIONS", `Unknown limit: ${name}`);
    limits[name] = checkAmount(`Limit ${name}`, value, DURATIONS.has(name), { limit: name });
  }
  if (limits.timeoutMs === 0) throw new CodecallError("INVALID_OPTIONS", "Limit timeoutMs must be positive", { details: { limit: "timeoutMs" } });
  return limits;
}

/** `approvalTimeoutMs` checked as a duration limit is (a positive integer of at most 365 days), or its default. */
export function resolveApprovalTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_APPROVAL_TIMEOUT_MS;
  const checked = checkAmount("approvalTimeoutMs", value, true, { option: "approvalTimeoutMs" });
  if (checked === 0) throw new CodecallError("INVALID_OPTIONS", "approvalTimeoutMs must be positive", { details: { option: "approvalTimeoutMs" } });
  return checked;
}

/** A non-negative safe integer (at most {@link MAX_DURATION_MS} for a duration), or `INVALID_OPTIONS` naming `what`. */
function checkAmount(what: string, value: unknown, duration: boolean, details: Record<string, string>): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new CodecallError("INVALID_OPTIONS", `${what} must be a non-negative integer, got ${describe(value)}`, { details });
  }
  if (duration && value > MAX_DURATION_MS) {
    throw new CodecallError("INVALID_OPTIONS", `${what} must be at most ${MAX_DURATION_MS} ms (365 days), got ${value}`, { details });
  }
  return value;
}

/** A value for an error message: strings quoted, so `"5"` is not mistaken for the number 5. */
function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
