/**
 * `--session`, `--session-idle SECONDS` and `--max-sessions N` of `codecall mcp serve`: keep a
 * Python session per MCP connection (state survives between calls), ended after that long idle,
 * at most that many at once.
 */
import type { CodeToolSessionOptions } from "@codecall/core";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

export const SESSION_FLAGS = {
  session: { type: "boolean" },
  "session-idle": { type: "string" },
  "max-sessions": { type: "string" },
} as const;

/** The `session` option the flags ask for; undefined without `--session`. */
export function sessionFlagsFrom(values: Record<string, unknown>): CodeToolSessionOptions | undefined {
  const idle = values["session-idle"] as string | undefined;
  const max = values["max-sessions"] as string | undefined;
  if (values.session !== true) {
    if (idle !== undefined || max !== undefined) throw new UsageError("--session-idle and --max-sessions go with --session", USAGE_EXIT_CODE);
    return undefined;
  }
  const options: CodeToolSessionOptions = {};
  if (idle !== undefined) {
    const seconds = Number(idle);
    if (!/^\d+(\.\d+)?$/.test(idle) || !(seconds > 0))
      throw new UsageError(`--session-idle wants a number of seconds above 0, got ${idle}`, USAGE_EXIT_CODE);
    options.idleMs = Math.round(seconds * 1000);
  }
  if (max !== undefined) {
    if (!/^\d+$/.test(max) || Number(max) < 1) throw new UsageError(`--max-sessions wants a whole number of at least 1, got ${max}`, USAGE_EXIT_CODE);
    options.maxSessions = Number(max);
  }
  return options;
}
