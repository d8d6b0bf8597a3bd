/**
 * What the model reads back from `execute_code`: one text that leads with the status (and, on
 * failure, why), then what the script printed. A failed run is an error result, so providers
 * that mark tool errors (Anthropic's `is_error`, …) mark it too.
 */
import type { CodeToolResult } from "@codecall/core";
import type { Tool } from "ai";

/** The AI SDK's tool result output (`ToolResultOutput` of `@ai-sdk/provider-utils`). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/**
 * Formats a result for the model:
 *
 * ```text
 * status: error (exit code 1, 2 tool calls, 0.41 s)
 * error: Script exited with code 1
 * output:
 * Traceback (most recent call last): ...
 * ```
 *
 * With a session the facts lead with the cell and its state (`cell 3, state kept`); a lost
 * state's note ends the output.
 */
export function codeResultToModelOutput(result: CodeToolResult): ToolResultOutput {
  const facts = [
    ...(result.cell === undefined ? [] : [`cell ${result.cell}`]),
    ...(result.state === undefined ? [] : [`state ${result.state}`]),
    ...(result.status === "error" && result.exitCode !== null ? [`exit code ${result.exitCode}`] : []),
    `${result.toolCallsMade} tool call${result.toolCallsMade === 1 ? "" : "s"}`,
    `${result.durationSeconds} s`,
  ];
  const lines = [`status: ${result.status} (${facts.join(", ")})`];
  if (result.error !== undefined) lines.push(`error: ${result.error}`);
  lines.push(result.output === "" ? "output: (the script printed nothing)" : `output:\n${result.output}`);
  const value = lines.join("\n");
  return result.status === "success" ? { type: "text", value } : { type: "error-text", value };
}
