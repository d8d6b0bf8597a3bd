import type { ExecuteCodeStatus } from "@codecall/core";

/** Process exit codes of `codecall run`, by result status (124 and 130 follow `timeout` and shells). */
export const EXIT_CODES: Readonly<Record<ExecuteCodeStatus, number>> = Object.freeze({
  success: 0,
  error: 1,
  timeout: 124,
  interrupted: 130,
});

/** Malformed command line (unknown flag, bad value, unknown backend or transport, plugin not installed). */
export const USAGE_EXIT_CODE = 2;

/**
 * What stops a run cleanly (script killed, tools cancelled, environment closed): Ctrl-C, SIGTERM,
 * SIGHUP, and "SIGPIPE" — stdout closed by its reader (`codecall run x.py | head -1`). Node ignores
 * the real SIGPIPE and fails the write instead (see output-closed.ts); the run ends as a process
 * killed by it would.
 */
export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP" | "SIGPIPE";

/** Exit code after a stop signal: 128 + its number, as shells report a process ended by it. */
export const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = Object.freeze({
  SIGHUP: 129,
  SIGINT: EXIT_CODES.interrupted,
  SIGTERM: 143,
  SIGPIPE: 141,
});

/** A problem with how codecall was invoked; printed without a stack trace. */
export class UsageError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "UsageError";
    this.exitCode = exitCode;
  }
}
