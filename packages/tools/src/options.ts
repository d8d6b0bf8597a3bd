/**
 * The limits of the built-in tools. Every limit keeps host memory and the RPC frame bounded,
 * whatever the file or command: a tool result travels back to the script as one JSON frame.
 */
import type { ToolContext, ToolDefinition } from "@codecall/core";

/** Options of {@link createBuiltinTools} and the single-tool factories. */
export interface BuiltinToolsOptions {
  /**
   * terminal: bytes of output kept (the first 40 % and the last 60 %, with a notice in the
   * middle). Default 50,000, the field's usual cap.
   */
  terminalMaxOutputBytes?: number;
  /** read_file and patch: the largest file they load, in bytes. Default 10 MiB. */
  maxFileBytes?: number;
  /** read_file: the longest line shown, in characters; longer ones are cut with a marker. Default 2,000. */
  maxLineChars?: number;
  /**
   * read_file: characters of numbered content in one result. Lines past this are left for the
   * next call (the result says `truncated`). Default 1,000,000.
   */
  maxReadChars?: number;
  /** search_files: the longest matching line returned, in characters. Default 1,000. */
  maxMatchChars?: number;
  /** search_files: time one search may take, in milliseconds. Default 60,000. */
  searchTimeoutMs?: number;
}

/** The defaults of {@link BuiltinToolsOptions}. */
export const DEFAULT_TOOL_LIMITS: Readonly<Required<BuiltinToolsOptions>> = Object.freeze({
  terminalMaxOutputBytes: 50_000,
  maxFileBytes: 10 * 1024 * 1024,
  maxLineChars: 2_000,
  maxReadChars: 1_000_000,
  maxMatchChars: 1_000,
  searchTimeoutMs: 60_000,
});

/** `options` over the defaults, each checked to be a positive safe integer. */
export function resolveToolLimits(options: BuiltinToolsOptions = {}): Required<BuiltinToolsOptions> {
  const limits = { ...DEFAULT_TOOL_LIMITS };
  for (const key of Object.keys(limits) as (keyof BuiltinToolsOptions)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${key} must be a positive integer, got ${String(value)}`);
    limits[key] = value;
  }
  return limits;
}

/**
 * A built-in tool: a `ToolDefinition` whose `execute` always returns a promise, so direct callers
 * (tests, hosts that run a tool outside a script) can `await` or `.catch()` it.
 */
export interface BuiltinTool<Args, Result> extends ToolDefinition<Args, Result> {
  execute(args: Args, context: ToolContext): Promise<Result>;
}
