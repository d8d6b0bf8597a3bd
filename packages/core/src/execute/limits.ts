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
  maxStderrBytes: 10_000,
  maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
});

/** Fills in defaults and rejects nonsense (negative, fractional, NaN). */
export function resolveLimits(overrides: Partial<ExecutionLimits> = {}): ExecutionLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides) as [keyof ExecutionLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, name)) throw new CodecallError("INVALID_OPTIONS", `Unknown limit: ${name}`);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new CodecallError("INVALID_OPTIONS", `Limit ${name} must be a non-negative integer, got ${String(value)}`);
    }
    limits[name] = value;
  }
  if (limits.timeoutMs === 0) throw new CodecallError("INVALID_OPTIONS", "Limit timeoutMs must be positive");
  return limits;
}
