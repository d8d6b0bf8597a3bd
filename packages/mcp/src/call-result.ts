/**
 * An `execute_code` result as MCP's `CallToolResult`: the output as text for the model (it already
 * says why a failed run failed), the main fields as `structuredContent` (described by
 * {@link EXECUTE_CODE_OUTPUT_SHAPE}), and `isError` when the run did not succeed, so a client shows
 * a failed script as a failed call.
 */
import type { CodeToolResult } from "@codecall/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The structured result's fields, as the tool's `outputSchema` declares them. */
export const EXECUTE_CODE_OUTPUT_SHAPE = {
  status: z.enum(["success", "error", "timeout", "interrupted"]).describe("How the run ended."),
  output: z.string().describe("What the script printed (on failure also its stderr and the reason)."),
  exitCode: z.number().int().nullable().describe("The script's exit code; null when it never ran."),
  toolCallsMade: z.number().int().describe("Tool calls the script made."),
  durationSeconds: z.number().describe("Wall time of the run."),
  error: z.string().optional().describe("Why the run did not succeed, in one line."),
  stdoutTruncated: z.boolean().describe("The output was over the limit and its middle was cut."),
  cell: z.number().int().optional().describe("With a session: the script's cell number in it."),
  state: z
    .enum(["fresh", "kept", "lost"])
    .optional()
    .describe("With a session: whether earlier calls' state was there (kept), there was none (fresh), or it was lost (see stateNote)."),
  stateNote: z.string().optional().describe("Why the session's earlier state was lost."),
};

export function toCallToolResult(result: CodeToolResult): CallToolResult {
  const structured = {
    status: result.status,
    output: result.output,
    exitCode: result.exitCode,
    toolCallsMade: result.toolCallsMade,
    durationSeconds: result.durationSeconds,
    ...(result.error === undefined ? {} : { error: result.error }),
    stdoutTruncated: result.stdoutTruncated,
    ...(result.cell === undefined ? {} : { cell: result.cell }),
    ...(result.state === undefined ? {} : { state: result.state }),
    ...(result.stateNote === undefined ? {} : { stateNote: result.stateNote }),
  };
  return {
    content: [{ type: "text", text: result.output === "" ? "(the script printed nothing)" : result.output }],
    structuredContent: structured,
    ...(result.status === "success" ? {} : { isError: true }),
  };
}
