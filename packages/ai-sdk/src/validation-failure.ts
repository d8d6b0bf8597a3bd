/**
 * Why a `jsonSchema()` validator refused the arguments, in one line for the script's `ToolError`:
 * the issues when the error carries Standard Schema issues (a ZodError, or a
 * TypeValidationError around them), else its message.
 */
import { errorMessage } from "@codecall/core";
import { describeStandardIssues } from "@codecall/core/plugin-kit";

export function validationFailure(error: unknown): string {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    const issues = (candidate as { issues?: unknown } | null)?.issues ?? candidate;
    if (Array.isArray(issues) && issues.every(isIssue)) return describeStandardIssues(issues).join("; ");
  }
  return errorMessage(error);
}

function isIssue(value: unknown): value is { message: string } {
  return typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string";
}
