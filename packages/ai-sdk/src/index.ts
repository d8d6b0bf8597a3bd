/**
 * @codecall/ai-sdk — codecall for the Vercel AI SDK, both ways: `codeTool()` gives the model an
 * `execute_code` tool, `fromAiSdkTools()` makes an AI SDK tool set callable from the script.
 */
export { codeTool, type AiSdkApprovalHandler, type AiSdkCodeTool, type AiSdkCodeToolOptions, type AiSdkToolCall } from "./code-tool.js";
export { fromAiSdkTools, type AiSdkToolDefinition, type FromAiSdkToolsOptions } from "./from-ai-sdk-tools.js";
export { codeResultToModelOutput, type ToolResultOutput } from "./model-output.js";
