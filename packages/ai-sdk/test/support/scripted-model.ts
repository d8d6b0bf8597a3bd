/**
 * A language model that plays the agent's side without a network: on its first turn it calls
 * `execute_code` with a script, and once the prompt carries that call's result it answers with a
 * text quoting it. It is the AI SDK's own MockLanguageModelV3, so generateText and streamText run
 * their real tool loop around it (validation, execute, toModelOutput, the next step's prompt).
 */
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type StreamPart = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The text of the last tool result in the prompt, or undefined before any tool ran. */
export function lastToolResult(options: CallOptions): { type: string; value: string } | undefined {
  for (const message of [...options.prompt].reverse()) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && (part.output.type === "text" || part.output.type === "error-text")) {
        return { type: part.output.type, value: part.output.value };
      }
    }
  }
  return undefined;
}

/** What the model says after the script ran. */
export const answerFor = (result: string) => `The script reported:\n${result}`;

/** A model that runs `code` once through `execute_code`, then answers. */
export function scriptedModel(code: string, toolName = "execute_code"): MockLanguageModelV3 {
  const toolCall = { type: "tool-call" as const, toolCallId: "call-1", toolName, input: JSON.stringify({ code }) };
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      // As a real provider's request would be, a call on an aborted signal is refused.
      options.abortSignal?.throwIfAborted();
      const result = lastToolResult(options);
      return result === undefined
        ? { content: [toolCall], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] }
        : { content: [{ type: "text", text: answerFor(result.value) }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
    doStream: async (options) => {
      options.abortSignal?.throwIfAborted();
      const result = lastToolResult(options);
      const parts: StreamPart[] =
        result === undefined
          ? [{ type: "stream-start", warnings: [] }, toolCall, { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage }]
          : [
              { type: "stream-start", warnings: [] },
              { type: "text-start", id: "t1" },
              { type: "text-delta", id: "t1", delta: answerFor(result.value) },
              { type: "text-end", id: "t1" },
              { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
            ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}
