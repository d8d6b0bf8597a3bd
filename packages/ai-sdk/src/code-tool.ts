/**
 * `codeTool()`: codecall's `execute_code` as an AI SDK tool, for `generateText`, `streamText` and
 * agents. The model sends `{ code }`; the script runs with the call's abort signal, so aborting
 * the generation interrupts the script and cancels the tools it is waiting for.
 */
import { createCodeTool, type CodeToolArgs, type CodeToolOptions, type ExecuteCodeResult } from "@codecall/core";
import { validateAgainstSchema } from "@codecall/core/backend-kit";
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import { codeResultToModelOutput } from "./model-output.js";

/** The AI SDK tool `codeTool()` returns: input `{ code }`, output codecall's result. */
export type AiSdkCodeTool = Tool<CodeToolArgs, ExecuteCodeResult>;

/**
 * Builds the `execute_code` tool. Register it under any key of `tools` (`execute_code` reads
 * well). The description is the one `createCodeTool` writes (the importable functions with their
 * signatures, the limits); `execute` never throws for a failed script: the model reads the
 * status, the error and the output (see {@link codeResultToModelOutput}), and the full
 * `ExecuteCodeResult` is the tool result in `steps[].toolResults`. Throws `INVALID_TOOL` /
 * `INVALID_OPTIONS` at once for tools or options a script could not use.
 */
export function codeTool(options: CodeToolOptions): AiSdkCodeTool {
  const codecall = createCodeTool(options);
  return tool({
    description: codecall.description,
    inputSchema: jsonSchema<CodeToolArgs>(codecall.parameters as JSONSchema7, {
      validate: (value) => {
        const issues = validateAgainstSchema(value, codecall.parameters);
        return issues.length === 0
          ? { success: true, value: value as CodeToolArgs }
          : { success: false, error: new Error(`Invalid execute_code input: ${issues.join("; ")}`) };
      },
    }),
    execute: (input, { abortSignal }) => codecall.execute(input, { signal: abortSignal }),
    toModelOutput: ({ output }) => codeResultToModelOutput(output),
  });
}
