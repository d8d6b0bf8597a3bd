import type { ExecuteCodeStatus } from "@codecall/core";

/** Process exit codes of `codecall run`, by result status (124 and 130 follow `timeout` and shells). */
export const EXIT_CODES: Readonly<Record<ExecuteCodeStatus, number>> = Object.freeze({
  success: 0,
  error: 1,
  timeout: 124,
  interrupted: 130,
});

/** Malformed command line (unknown flag, missing value). */
export const USAGE_EXIT_CODE = 2;

/** A problem with how codecall was invoked; printed without a stack trace. */
export class UsageError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "UsageError";
    this.exitCode = exitCode;
  }
}
