/**
 * `codeTool()`: codecall's `execute_code` as an AI SDK tool, for `generateText`, `streamText` and
 * agents. The model sends `{ code }`; the script runs with the call's abort signal, so aborting
 * the generation interrupts the script and cancels the tools it is waiting for. Calls the script
 * makes to tools that need approval are decided by `onApproval` while the script runs (the AI SDK's
 * own approval step ends a generation step, which a running script cannot wait for).
 */
import {
  createCodeTool,
  type ApprovalDecision,
  type ApprovalRequest,
  type CodeToolArgs,
  type CodeToolOptions,
  type CodeToolResult,
} from "@codecall/core";
import { validateAgainstSchema } from "@codecall/core/plugin-kit";
import { jsonSchema, tool, type JSONSchema7, type Tool, type ToolExecutionOptions } from "ai";
import { codeResultToModelOutput } from "./model-output.js";

/**
 * The AI SDK tool `codeTool()` returns: input `{ code }` (and `reset` with `session`), output
 * codecall's result. `close()` ends the sessions it keeps (with `session` and no shared `pool`).
 */
export type AiSdkCodeTool = Tool<CodeToolArgs, CodeToolResult> & { close(): Promise<void> };

/** The `execute_code` call a script runs in, as the AI SDK gave it to the tool. */
export type AiSdkToolCall = Pick<ToolExecutionOptions, "toolCallId" | "messages" | "experimental_context">;

/**
 * Decides a call the script makes to a tool that needs approval (see core's `ApprovalHandler`),
 * told also which `execute_code` call of the conversation the script belongs to: its
 * `toolCallId`, the `messages` that led to it, and `generateText`'s `experimental_context` (say,
 * the user to ask). A handler of core's shape, `(request) => decision`, fits as it is.
 */
export type AiSdkApprovalHandler = (request: ApprovalRequest, call: AiSdkToolCall) => ApprovalDecision | Promise<ApprovalDecision>;

export interface AiSdkCodeToolOptions extends Omit<CodeToolOptions, "onApproval"> {
  /**
   * Decides, while the script runs, the calls it makes to tools that need approval (approve, deny
   * with a reason the script reads as `ToolError`, or approve the tool for the rest of the run).
   * Without it such calls are denied, and the description tells the model so.
   */
  onApproval?: AiSdkApprovalHandler;
  /**
   * The AI SDK's `needsApproval` for the `execute_code` call itself: the whole script is approved
   * (or not) before it runs, through the AI SDK's own round trip (a `tool-approval-request` part
   * ends the step; the next `generateText` call, given a `tool-approval-response`, runs or skips
   * it). `true`, or a function of `{ code }` and the call. Independent of `onApproval`, which
   * decides the calls inside a running script.
   */
  needsApproval?: AiSdkCodeTool["needsApproval"];
  /**
   * With `session`: which conversation a call belongs to, so each conversation keeps its own
   * Python session. The AI SDK gives a tool no conversation id, so pass yours in: typically
   * `generateText({ experimental_context: { chatId } })` and
   * `conversationKey: (call) => (call.experimental_context as { chatId: string }).chatId`.
   * Without it (or when it returns undefined) calls share one session: right for a tool made
   * per conversation, wrong for one tool serving several.
   */
  conversationKey?: (call: AiSdkToolCall) => string | undefined;
}

/**
 * Builds the `execute_code` tool. Register it under any key of `tools` (`execute_code` reads
 * well). The description is the one `createCodeTool` writes (the importable functions with their
 * signatures, the limits, which tools need approval and whether it can be given); `execute` never
 * throws for a failed script: the model reads the status, the error and the output (see
 * {@link codeResultToModelOutput}), and the full `ExecuteCodeResult` is the tool result in
 * `steps[].toolResults`. Throws `INVALID_TOOL` / `INVALID_OPTIONS` at once for tools or options
 * a script could not use.
 */
export function codeTool(options: AiSdkCodeToolOptions): AiSdkCodeTool {
  const { onApproval, needsApproval, conversationKey, ...codeToolOptions } = options;
  const codecall = createCodeTool({ ...codeToolOptions, canApprove: options.canApprove ?? onApproval !== undefined });
  const aiTool = tool<CodeToolArgs, CodeToolResult>({
    description: codecall.description,
    inputSchema: jsonSchema<CodeToolArgs>(codecall.parameters as JSONSchema7, {
      validate: (value) => {
        const issues = validateAgainstSchema(value, codecall.parameters);
        return issues.length === 0
          ? { success: true, value: value as CodeToolArgs }
          : { success: false, error: new Error(`Invalid execute_code input: ${issues.join("; ")}`) };
      },
    }),
    ...(needsApproval === undefined ? {} : { needsApproval }),
    execute: (input, { abortSignal, toolCallId, messages, experimental_context }) => {
      const call: AiSdkToolCall = { toolCallId, messages, experimental_context };
      const key = conversationKey?.(call);
      return codecall.execute(input, {
        signal: abortSignal,
        ...(key === undefined ? {} : { conversationKey: key }),
        ...(onApproval ? { onApproval: (request: ApprovalRequest) => onApproval(request, call) } : {}),
      });
    },
    toModelOutput: ({ output }) => codeResultToModelOutput(output),
  });
  return Object.assign(aiTool, { close: () => codecall.close() });
}
