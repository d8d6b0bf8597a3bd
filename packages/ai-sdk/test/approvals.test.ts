/**
 * Approvals through the AI SDK's own tool loop: generateText / streamText with the SDK's mock model
 * call `execute_code`, whose script (on the local backend over uds) calls AI SDK tools that declare
 * `needsApproval`. The calls wait inside the running script for codeTool's `onApproval`; a denial
 * is a ToolError the script catches. And the `execute_code` call itself can carry the AI SDK's
 * `needsApproval`, approved through the SDK's own tool-approval round trip before the script runs.
 */
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment } from "@codecall/backend-local";
import type { ApprovalRequest, Environment, ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type ToolSet } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { codeTool, fromAiSdkTools, type AiSdkApprovalHandler, type AiSdkCodeTool, type AiSdkToolCall } from "../src/index.js";
import { lastToolResult, scriptedModel } from "./support/scripted-model.js";

let workdir: string;
let environment: Environment;

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), "codecall-ai-sdk-approvals-"));
  environment = createEnvironment({ cwd: workdir });
});

afterAll(async () => {
  await environment?.close();
  await rm(workdir, { recursive: true, force: true });
});

/** What the AI SDK tools saw. */
let deleted: { id: number; toolCallId: string }[];
let ruleCalls: { input: unknown; toolCallId: string; messages: unknown; experimental_context: unknown }[];

beforeEach(() => {
  deleted = [];
  ruleCalls = [];
});

/** Tickets: deleting one always needs approval; archiving needs it unless the ticket is a draft (decided on the parsed input). */
const ticketTools = {
  "delete-ticket": tool({
    description: "Deletes a ticket.",
    inputSchema: z.object({ id: z.number().int() }),
    needsApproval: true,
    execute: ({ id }, { toolCallId }) => {
      deleted.push({ id, toolCallId });
      return { deleted: id };
    },
  }),
  "archive-ticket": tool({
    description: "Archives a ticket.",
    inputSchema: z.object({ id: z.number().int(), kind: z.enum(["draft", "live"]).default("live") }),
    needsApproval: (input, { toolCallId, messages, experimental_context }) => {
      ruleCalls.push({ input, toolCallId, messages, experimental_context });
      return input.kind !== "draft";
    },
    execute: ({ id }, { toolCallId }) => {
      deleted.push({ id, toolCallId });
      return { archived: id };
    },
  }),
} satisfies ToolSet;

interface Asked {
  request: ApprovalRequest;
  call: AiSdkToolCall;
}

/** Runs `code` through generateText's tool loop; returns the script's result and what the model read back. */
async function runThroughModel(code: string, onApproval?: AiSdkApprovalHandler, context?: unknown) {
  const model = scriptedModel(code);
  const executeCode = codeTool({
    environment,
    transport: createTransport(),
    tools: await fromAiSdkTools(ticketTools, { experimental_context: { conversion: true } }),
    ...(onApproval ? { onApproval } : {}),
  });
  const result = await generateText({
    model,
    tools: { execute_code: executeCode },
    stopWhen: stepCountIs(3),
    prompt: "Tidy the tickets.",
    ...(context === undefined ? {} : { experimental_context: context }),
  });
  const offered = model.doGenerateCalls[0]!.tools?.find((candidate) => candidate.name === "execute_code");
  return {
    script: result.steps[0]!.toolResults[0]!.output as ExecuteCodeResult,
    seen: lastToolResult(model.doGenerateCalls[1]!)!,
    description: offered?.type === "function" ? (offered.description ?? "") : "",
  };
}

describe("calls inside a running script to AI SDK tools that need approval", () => {
  it("wait for onApproval, which learns the call and the execute_code call it runs in; approved, the tool runs", async () => {
    const asked: Asked[] = [];
    const { script, seen, description } = await runThroughModel(
      "from codecall import delete_ticket\nprint(delete_ticket(7))",
      (request, call) => {
        asked.push({ request, call });
        return "approve";
      },
      { user: "ada" },
    );
    expect(script, script.output).toMatchObject({ status: "success", output: "{'deleted': 7}\n", toolCallsMade: 1 });
    expect(seen.value).toContain("{'deleted': 7}");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.request).toMatchObject({ tool: "delete_ticket", args: { id: 7 }, callId: "1" });
    // The execute_code call of the conversation, as the AI SDK gave it to the tool.
    expect(asked[0]!.call).toMatchObject({ toolCallId: "call-1", experimental_context: { user: "ada" } });
    expect(asked[0]!.call.messages).toEqual([{ role: "user", content: "Tidy the tickets." }]);
    expect(deleted).toEqual([{ id: 7, toolCallId: `codecall-${asked[0]!.request.runId}-1` }]);
    expect(description).toContain(
      "Approval: calls to delete_ticket and some calls to archive_ticket (depending on their arguments) need approval. Such a call waits",
    );
  });

  it("a denial is a ToolError the script catches, with the reason; the script goes on and the tool never runs", async () => {
    const code = [
      "from codecall import delete_ticket, ToolError",
      "try:",
      "    delete_ticket(7)",
      "except ToolError as error:",
      "    print('denied:', error)",
      "print('went on')",
    ].join("\n");
    const { script, seen } = await runThroughModel(code, () => ({ type: "deny", reason: "tickets are kept this week" }));
    expect(script, script.output).toMatchObject({ status: "success", toolCallsMade: 1 });
    expect(script.output).toMatch(/^denied: .*Tool call denied: tickets are kept this week\nwent on\n$/);
    expect(seen).toMatchObject({ type: "text" });
    expect(seen.value).toContain("Tool call denied: tickets are kept this week");
    expect(deleted).toEqual([]);
  });

  it("without onApproval such calls are denied at once, and the description told the model so", async () => {
    const code = "from codecall import delete_ticket, ToolError\ntry:\n    delete_ticket(7)\nexcept ToolError as error:\n    print(error)";
    const { script, description } = await runThroughModel(code);
    expect(description).toContain("need approval, which nobody can give in this run: they raise ToolError (denied). Do not make them.");
    expect(script.output).toContain("Tool call denied: delete_ticket needs approval, and nobody can approve calls in this run");
    expect(deleted).toEqual([]);
  });

  it("the tool's own needsApproval function decides on the parsed input, with the same toolCallId its execute then gets", async () => {
    const asked: ApprovalRequest[] = [];
    const code = [
      "from codecall import archive_ticket, ToolError",
      "print(archive_ticket(1, kind='draft'))",
      "try:",
      "    archive_ticket(2)",
      "except ToolError as error:",
      "    print(error)",
      "try:",
      "    archive_ticket(3, kind='gone')",
      "except ToolError as error:",
      "    print(error)",
    ].join("\n");
    const { script } = await runThroughModel(code, (request) => {
      asked.push(request);
      return { type: "deny", reason: "live tickets stay" };
    });
    const lines = script.output.trim().split("\n");
    expect(lines[0]).toBe("{'archived': 1}");
    expect(lines[1]).toContain("Tool call denied: live tickets stay");
    // Refused by the schema before any rule or approval.
    expect(lines[2]).toMatch(/Invalid arguments: .*kind/);
    expect(asked.map((request) => request.args)).toEqual([{ id: 2, kind: "live" }]);
    // The rule saw zod's default filled in, the conversion's context, and the call's own toolCallId.
    const runId = asked[0]!.runId;
    expect(ruleCalls).toEqual([
      { input: { id: 1, kind: "draft" }, toolCallId: `codecall-${runId}-1`, messages: [], experimental_context: { conversion: true } },
      { input: { id: 2, kind: "live" }, toolCallId: `codecall-${runId}-2`, messages: [], experimental_context: { conversion: true } },
    ]);
    expect(deleted).toEqual([{ id: 1, toolCallId: `codecall-${runId}-1` }]);
  });

  it("approve-for-run in a loop asks once, under streamText too", async () => {
    const asked: ApprovalRequest[] = [];
    const model = scriptedModel("from codecall import delete_ticket\nfor i in range(20):\n    delete_ticket(i)\nprint('deleted 20')");
    const result = streamText({
      model,
      tools: {
        execute_code: codeTool({
          environment,
          transport: createTransport(),
          tools: await fromAiSdkTools(ticketTools),
          onApproval: (request) => (asked.push(request), "approve-for-run"),
        }),
      },
      stopWhen: stepCountIs(3),
      prompt: "Delete them all.",
    });
    const steps = await result.steps;
    expect(steps[0]!.toolResults[0]?.output).toMatchObject({ status: "success", output: "deleted 20\n", toolCallsMade: 20 });
    expect(asked).toHaveLength(1);
    expect(deleted.map((call) => call.id)).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });
});

describe("the execute_code call itself with the AI SDK's needsApproval", () => {
  /** The AI SDK's round trip: the first generateText ends with the approval request; the second, given the answer, goes on. */
  async function approveScript(model: ReturnType<typeof scriptedModel>, executeCode: AiSdkCodeTool, answer: { approved: boolean; reason?: string }) {
    const settings = { model, tools: { execute_code: executeCode }, stopWhen: stepCountIs(3) };
    const prompt: ModelMessage[] = [{ role: "user", content: "Go." }];
    const first = await generateText({ ...settings, messages: prompt });
    const request = first.content.find((part) => part.type === "tool-approval-request");
    const response: ModelMessage = { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, ...answer }] };
    const second = await generateText({ ...settings, messages: [...prompt, ...first.response.messages, response] });
    return { first, request, second };
  }

  it("ends the step with a tool-approval-request; the script runs only once the next call approves it", async () => {
    const script = "import os\nprint('ran in', os.getcwd())";
    const model = scriptedModel(script);
    const seenByRule: unknown[] = [];
    const executeCode = codeTool({
      environment,
      transport: createTransport(),
      needsApproval: (input) => (seenByRule.push(input), true),
    });
    const { first, request, second } = await approveScript(model, executeCode, { approved: true });
    expect(request).toMatchObject({ toolCall: { toolName: "execute_code", input: { code: script } } });
    expect(first.steps[0]!.toolResults).toEqual([]);
    // The rule was given the script (the AI SDK asks it again when it checks the approval).
    expect(seenByRule.length).toBeGreaterThan(0);
    expect(seenByRule.every((input) => JSON.stringify(input) === JSON.stringify({ code: script }))).toBe(true);
    // The AI SDK runs an approved call before the first step: its result is among the response's
    // messages, and the model reads it.
    const seen = lastToolResult(model.doGenerateCalls.at(-1)!);
    expect(seen).toEqual({ type: "text", value: expect.stringMatching(/^status: success \(0 tool calls, [\d.]+ s\)\noutput:\n/) as string });
    expect(seen!.value.endsWith(`ran in ${workdir}\n`)).toBe(true);
    expect(second.text).toContain(`ran in ${workdir}`);
  });

  it("a denied script never runs; the model is told it was denied", async () => {
    const model = scriptedModel("open('marker', 'w').write('x')");
    const executeCode = codeTool({ environment, transport: createTransport(), needsApproval: true });
    const { second } = await approveScript(model, executeCode, { approved: false, reason: "not now" });
    expect(second.steps.flatMap((step) => step.toolResults)).toEqual([]);
    const denial = second.response.messages.flatMap((message) => (message.role === "tool" ? message.content : []));
    expect(denial).toEqual([expect.objectContaining({ type: "tool-result", output: { type: "execution-denied", reason: "not now" } })]);
    await expect(access(path.join(workdir, "marker"))).rejects.toThrow(/ENOENT/);
  });
});
