/**
 * codeTool with `session`: state kept per conversation (named by `conversationKey` from the call's
 * `experimental_context`), two conversations kept apart, `reset`, a shared pool across tools with
 * a changed tool set, and what the model reads. Real parts: the local backend, UDS, python3.
 */
import { createEnvironment } from "@codecall/backend-local";
import { createCodeSessionPool, defineTool, type CodeToolResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { asSchema, generateText, stepCountIs, type ToolExecutionOptions } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { codeTool, type AiSdkCodeTool } from "../src/index.js";
import { lastToolResult, scriptedModel } from "./support/scripted-model.js";

const environment = createEnvironment();
const transport = createTransport();
const tools: AiSdkCodeTool[] = [];
afterAll(async () => {
  await Promise.all(tools.map((tool) => tool.close()));
  await environment.close();
});

const byChat = (call: { experimental_context?: unknown }) => (call.experimental_context as { chatId?: string } | undefined)?.chatId;

function sessionTool(options: Partial<Parameters<typeof codeTool>[0]> = {}): AiSdkCodeTool {
  const made = codeTool({ environment, transport, session: true, conversationKey: byChat, ...options });
  tools.push(made);
  return made;
}

/** Runs `code` through the tool as the AI SDK would, in conversation `chatId`. */
async function call(tool: AiSdkCodeTool, input: { code: string; reset?: boolean }, chatId?: string): Promise<CodeToolResult> {
  const options: ToolExecutionOptions = { toolCallId: "call", messages: [], ...(chatId ? { experimental_context: { chatId } } : {}) };
  return (await tool.execute!(input, options)) as CodeToolResult;
}

describe("codeTool({ session })", () => {
  it("tells the model that state persists and offers reset", async () => {
    const tool = sessionTool();
    expect(tool.description).toContain("State persists between calls in this conversation");
    expect(tool.description).toContain("Pass reset: true to start from a fresh session. The session ends after 15 minutes without a call");
    const schema = (await asSchema(tool.inputSchema).jsonSchema) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(["code", "reset"]);
    const plain = codeTool({ environment, transport });
    expect(plain.description).not.toContain("State persists");
  });

  it("keeps each conversation's variables and imports, and keeps two conversations apart", async () => {
    const tool = sessionTool();
    expect(await call(tool, { code: "import json\nnotes = ['alice']" }, "chat-a")).toMatchObject({ status: "success", cell: 1, state: "fresh" });
    expect(await call(tool, { code: "notes = ['bob']" }, "chat-b")).toMatchObject({ status: "success", state: "fresh" });
    const a = await call(tool, { code: "notes.append('again')\nprint(json.dumps(notes))" }, "chat-a");
    expect(a).toMatchObject({ status: "success", cell: 2, state: "kept", output: '["alice", "again"]\n' });
    const b = await call(tool, { code: "print(notes)\nprint('json' in globals())" }, "chat-b");
    expect(b).toMatchObject({ status: "success", state: "kept", output: "['bob']\nFalse\n" });
  });

  it("reset: true starts the conversation afresh before the code runs, and only that conversation", async () => {
    const tool = sessionTool();
    await call(tool, { code: "x = 1" }, "chat-a");
    await call(tool, { code: "x = 2" }, "chat-b");
    const reset = await call(tool, { code: "print('x' in globals())", reset: true }, "chat-a");
    expect(reset).toMatchObject({ status: "success", state: "fresh", output: "False\n" });
    expect(await call(tool, { code: "print(x)" }, "chat-b")).toMatchObject({ output: "2\n", state: "kept" });
  });

  it("calls without a conversation key share the default session", async () => {
    const tool = sessionTool({ conversationKey: () => undefined });
    await call(tool, { code: "y = 'shared'" }, "chat-a");
    expect(await call(tool, { code: "print(y)" }, "chat-b")).toMatchObject({ output: "shared\n", state: "kept" });
  });

  it("a tool set that changed never finds stale stubs: the conversation gets a new session, and is told its state is gone", async () => {
    const pool = createCodeSessionPool();
    const greet = (greeting: string) =>
      defineTool({
        name: "greet",
        description: `Says ${greeting}.`,
        parameters: { type: "object", properties: {}, additionalProperties: false },
        execute: () => greeting,
      });
    const shout = defineTool({
      name: "shout",
      description: "Shouts.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      execute: ({ text }: { text: string }) => text.toUpperCase(),
    });
    // A platform that builds its tool per request, sharing one pool.
    const first = sessionTool({ tools: [greet("hello")], session: { pool } });
    await call(first, { code: "from codecall import greet\nkept = greet()\nprint(kept)" }, "chat-a");
    const same = sessionTool({ tools: [greet("hello")], session: { pool } });
    expect(await call(same, { code: "print(kept)" }, "chat-a")).toMatchObject({ output: "hello\n", state: "kept" });

    const changed = sessionTool({ tools: [greet("hello"), shout], session: { pool } });
    const result = await call(changed, { code: "from codecall import shout\nprint(shout('hi'))\nprint('kept' in globals())" }, "chat-a");
    expect(result).toMatchObject({ status: "success", state: "lost" });
    expect(result.stateNote).toContain("the available tools changed");
    expect(result.output).toMatch(/^HI\nFalse\n\n\[Earlier state is gone: the available tools changed/);
    // The old tool set's session is gone too: going back replaces it again.
    const back = await call(same, { code: "from codecall import shout" }, "chat-a");
    expect(back).toMatchObject({ status: "error", state: "lost" });
    expect(back.output).toContain("ImportError");
    expect(pool.size).toBe(1);
    await pool.close();
  });

  it("tools built per request with the same schema keep the session, and each call runs its own request's implementation", async () => {
    const pool = createCodeSessionPool();
    const whoAmI = (user: string) =>
      defineTool({
        name: "who_am_i",
        description: "Names the user of this request.",
        parameters: { type: "object", properties: {}, additionalProperties: false },
        execute: () => user,
      });
    const forAda = sessionTool({ tools: [whoAmI("ada")], session: { pool } });
    expect((await call(forAda, { code: "from codecall import who_am_i\nseen = [who_am_i()]\nprint(seen)" }, "chat-r")).output).toBe("['ada']\n");
    const forBob = sessionTool({ tools: [whoAmI("bob")], session: { pool } });
    const second = await call(forBob, { code: "seen.append(who_am_i())\nprint(seen)" }, "chat-r");
    expect(second).toMatchObject({ state: "kept", output: "['ada', 'bob']\n" });
    await pool.close();
  });

  it("tells the model the cell and state, and that an expired session's state is gone", async () => {
    const tool = sessionTool({ session: { idleMs: 200 } });
    await call(tool, { code: "z = 1" }, "chat-idle");
    // Wait for the idle session to end (a condition, polled; the idle time itself is not asserted).
    const deadline = Date.now() + 20_000;
    let result: CodeToolResult;
    do {
      await new Promise((resolve) => setTimeout(resolve, 300));
      result = await call(tool, { code: "print('z' in globals())" }, "chat-idle");
    } while (result.state === "kept" && Date.now() < deadline);
    expect(result).toMatchObject({ state: "lost", output: expect.stringContaining("False\n") as string });
    expect(result.stateNote).toContain("had ended after 200 ms without a call");
    const text = tool.toModelOutput!({ toolCallId: "call", input: { code: "" }, output: result });
    expect(text).toMatchObject({ type: "text", value: expect.stringMatching(/^status: success \(cell 1, state lost, 0 tool calls/) as string });
  });

  it("each cell's approvals are decided for its own call's conversation", async () => {
    const remember = defineTool({
      name: "remember",
      description: "Stores a note.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      needsApproval: true,
      execute: () => "stored",
    });
    const tool = sessionTool({
      tools: [remember],
      onApproval: (request, call) => (byChat(call) === "chat-trusted" ? "approve" : { type: "deny", reason: `not in ${byChat(call)}` }),
    });
    const code = "from codecall import remember, ToolError\ntry:\n    print(remember())\nexcept ToolError as error:\n    print('denied:', error)";
    expect((await call(tool, { code }, "chat-trusted")).output).toBe("stored\n");
    expect((await call(tool, { code }, "chat-other")).output).toMatch(/^denied: .*not in chat-other/);
    expect((await call(tool, { code }, "chat-trusted")).output).toBe("stored\n");
  });

  it("runs through generateText, the conversation named by experimental_context", async () => {
    const tool = sessionTool();
    await generateText({
      model: scriptedModel("secret = 'from the first turn'"),
      tools: { execute_code: tool },
      stopWhen: stepCountIs(2),
      prompt: "Remember something.",
      experimental_context: { chatId: "chat-gen" },
    });
    const model = scriptedModel("print(secret)");
    await generateText({
      model,
      tools: { execute_code: tool },
      stopWhen: stepCountIs(2),
      prompt: "Recall it.",
      experimental_context: { chatId: "chat-gen" },
    });
    const read = lastToolResult(model.doGenerateCalls.at(-1)!);
    expect(read).toEqual({ type: "text", value: expect.stringMatching(/state kept.*\noutput:\nfrom the first turn\n$/s) as string });
  });
});
