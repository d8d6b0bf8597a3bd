/**
 * Approvals of the calls a served script makes, asked of the MCP client through elicitation. The
 * real SDK Client connects over Streamable HTTP (so each question travels on the stream of the
 * tools/call that runs the script) with an elicitation handler, or without one; scripts run on the
 * local backend. Cancelling, disconnecting or timing out while a question is open ends the wait.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment } from "@codecall/backend-local";
import { createCodeTool, defineTool, type ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ElicitRequestSchema,
  type ClientNotification,
  type ClientRequest,
  type ElicitRequest,
  type ElicitResult,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { serveHttp, type HttpServing } from "../src/index.js";
import { processAlive, waitFor } from "./support.js";

type ElicitExtra = RequestHandlerExtra<ClientRequest, ClientNotification>;
/** How the test's user answers a question. */
type Answer = (request: ElicitRequest, extra: ElicitExtra) => ElicitResult | Promise<ElicitResult>;

const environment = createEnvironment();
const SECRET = "s3cr3t-value-of-the-host";
let written: string[];
const writeNote = defineTool({
  name: "write_note",
  description: "Writes a note.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  needsApproval: true,
  execute: ({ text }: { text: string }) => {
    written.push(text);
    return `wrote ${text}`;
  },
});

const results: ExecuteCodeResult[] = [];
const clients: Client[] = [];
let serving: HttpServing;
let scratch: string;
/** Every question the asking client received, with its id. */
let questions: { request: ElicitRequest; id: RequestId }[];
/**
 * The ids of the questions the server withdrew (`notifications/cancelled`), as they arrived. Read
 * on the wire: the SDK's Client (1.32) ignores a cancellation of request id 0 — the first question
 * of a session — and would not abort its handler (typescript-sdk#2283).
 */
let withdrawn: RequestId[];
let answer: Answer;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "codecall-mcp-approvals-"));
  const tool = createCodeTool({ environment, transport: createTransport(), tools: [writeNote], limits: { timeoutMs: 120_000 } });
  serving = await serveHttp(tool, { onResult: (result) => results.push(result), knownSecrets: [SECRET] });
});

beforeEach(() => {
  written = [];
  questions = [];
  withdrawn = [];
  answer = () => ({ action: "accept", content: { decision: "approve" } });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await serving?.close();
  await environment.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A client over HTTP; `asking` declares elicitation and answers with the test's `answer`. */
async function connect(url: string, asking: boolean): Promise<Client> {
  const client = new Client({ name: "approvals-test", version: "1.0.0" }, asking ? { capabilities: { elicitation: {} } } : {});
  if (asking) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      questions.push({ request, id: extra.requestId });
      return answer(request, extra);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "notifications/cancelled") withdrawn.push((message.params as { requestId: RequestId }).requestId);
    deliver(message);
  };
  clients.push(client);
  return client;
}

async function run(client: Client, code: string): Promise<{ text: string; result: Record<string, unknown> }> {
  const reply = await client.callTool({ name: "execute_code", arguments: { code } }, undefined, { timeout: 120_000 });
  return { text: (reply.content as { text: string }[])[0]!.text, result: reply.structuredContent as Record<string, unknown> };
}

const CATCHING = [
  "from codecall import write_note, ToolError",
  "try:",
  "    print(write_note('hello'))",
  "except ToolError as error:",
  "    print('denied:', error)",
  "print('went on')",
].join("\n");

/** A promise that never settles: a user who never answers. */
const never = () => new Promise<ElicitResult>(() => {});

describe("a client that supports elicitation", () => {
  it("lists a description that says calls needing approval wait for a decision", async () => {
    const { tools } = await (await connect(serving.url, true)).listTools();
    expect(tools[0]!.description).toContain("Approval: calls to write_note need approval. Such a call waits until it is decided");
  });

  it("is asked, with the tool and its arguments, and an approved call runs", async () => {
    const client = await connect(serving.url, true);
    const progress: string[] = [];
    const reply = await client.callTool(
      { name: "execute_code", arguments: { code: "from codecall import write_note\nprint(write_note('hello'))" } },
      undefined,
      {
        onprogress: ({ message }) => progress.push(message ?? ""),
      },
    );
    expect(reply.structuredContent).toMatchObject({ status: "success", toolCallsMade: 1 });
    expect(reply.content).toEqual([{ type: "text", text: "wrote hello\n" }]);
    expect(progress.join("\n")).toContain("[calling write_note]\n[waiting for approval of write_note]");
    expect(written).toEqual(["hello"]);
    expect(questions).toHaveLength(1);
    const { params } = questions[0]!.request;
    expect(params.message).toContain('write_note({"text":"hello"})');
    expect(params).toMatchObject({
      mode: "form",
      requestedSchema: { properties: { decision: { enum: ["approve", "approve-for-run", "deny"] } }, required: ["decision"] },
    });
  });

  it("every other answer denies, with a reason the script reads in the ToolError it catches before going on", async () => {
    const client = await connect(serving.url, true);
    const cases: [Answer, string][] = [
      [() => ({ action: "accept", content: { decision: "deny", reason: "  not in production  " } }), "not in production"],
      [() => ({ action: "accept", content: { decision: "deny" } }), "the user denied this call"],
      [() => ({ action: "decline" }), "the user declined this call"],
      [() => ({ action: "cancel" }), "the user dismissed the approval request"],
      [() => ({ action: "accept" }), "the client's answer named no decision"],
      // Failing closed: the client answers with an error, or with a form that does not match.
      [
        () => {
          throw new Error("no UI here");
        },
        "the approval could not be obtained",
      ],
      [() => ({ action: "accept", content: { decision: "maybe" } }), "the approval could not be obtained"],
    ];
    for (const [reply, reason] of cases) {
      answer = reply;
      expect((await run(client, CATCHING)).text).toBe(`denied: write_note: Tool call denied: ${reason}\nwent on\n`);
    }
    expect(questions).toHaveLength(cases.length);
    expect(written).toEqual([]);
  });

  it("approve-for-run in a loop of 20 asks once", async () => {
    const client = await connect(serving.url, true);
    answer = () => ({ action: "accept", content: { decision: "approve-for-run" } });
    const { text } = await run(client, "from codecall import write_note\nfor i in range(20):\n    write_note(f'n{i}')\nprint('done')");
    expect(text).toBe("done\n");
    expect(questions).toHaveLength(1);
    expect(written).toHaveLength(20);
  });

  it("masks host secrets and well-known tokens in the question, and bounds long arguments", async () => {
    const client = await connect(serving.url, true);
    const token = `ghp_${"a1".repeat(18)}`;
    await run(client, `from codecall import write_note\nwrite_note(${JSON.stringify(`${SECRET} ${token} ${"x".repeat(5000)}`)})`);
    const message = questions[0]!.request.params.message;
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(token);
    expect(message).toMatch(/ {2}write_note\(\{"text":"\S+ \S+ x+…\)\n/);
    expect(message.length).toBeLessThan(1_000);
  });

  it("cancelling the tools/call while a question is open withdraws the question and ends the script", async () => {
    const client = await connect(serving.url, true);
    answer = never;
    const pidFile = path.join(scratch, "cancel.pid");
    const code = `import os\nopen(${JSON.stringify(pidFile)}, 'w').write(str(os.getpid()))\nfrom codecall import write_note\nwrite_note('x')`;
    const before = results.length;
    const controller = new AbortController();
    const call = client.callTool({ name: "execute_code", arguments: { code } }, undefined, { signal: controller.signal, timeout: 120_000 });
    const settled = call.catch((error: unknown) => error);
    await waitFor(() => questions.length === 1, "the question reached the client");
    const pid = Number(await readFile(pidFile, "utf8"));
    controller.abort("the user pressed stop");
    expect(String(await settled)).toMatch(/the user pressed stop/);
    await waitFor(() => results.length > before, "the run ended");
    expect(results.at(-1)).toMatchObject({ status: "interrupted" });
    // The server cancelled its question (notifications/cancelled), so the client's prompt can go.
    await waitFor(() => withdrawn.includes(questions[0]!.id), "the question withdrawn");
    await waitFor(() => !processAlive(pid), `script ${pid} gone`);
    expect(written).toEqual([]);
  });
});

describe("a client that goes away while a question is open", () => {
  const ways: [string, (client: Client) => Promise<void>][] = [
    ["ends its session (DELETE)", (client) => (client.transport as StreamableHTTPClientTransport).terminateSession()],
    // Closing the client closes its HTTP connections and leaves the session.
    ["drops its connection", async () => {}],
  ];
  for (const [how, leave] of ways) {
    it(`${how}: the run ends at once, not at the approval timeout, and the server goes on serving`, async () => {
      const leaving = await connect(serving.url, true);
      answer = never;
      const before = results.length;
      void leaving.callTool({ name: "execute_code", arguments: { code: "from codecall import write_note\nwrite_note('x')" } }).catch(() => {});
      await waitFor(() => questions.length === 1, "the question reached the client");
      await leave(leaving);
      await leaving.close();
      await waitFor(() => results.length > before, "the run ended");
      expect(results.at(-1)).toMatchObject({ status: "interrupted" });
      expect(written).toEqual([]);
      answer = () => ({ action: "accept", content: { decision: "approve" } });
      expect((await run(await connect(serving.url, true), "from codecall import write_note\nprint(write_note('y'))")).text).toBe("wrote y\n");
    });
  }
});

describe("a client without elicitation", () => {
  it("lists a description that says such calls are denied, and they are, without a question", async () => {
    const client = await connect(serving.url, false);
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toContain(
      "Approval: calls to write_note need approval, which nobody can give in this run: they raise ToolError (denied). Do not make them.",
    );
    expect((await run(client, CATCHING)).text).toBe(
      "denied: write_note: Tool call denied: write_note needs approval, and nobody can approve calls in this run\nwent on\n",
    );
    expect(written).toEqual([]);
  });
});

describe("server options", () => {
  it("an approval that times out withdraws the question and denies the call", async () => {
    const tool = createCodeTool({ environment, transport: createTransport(), tools: [writeNote], approvalTimeoutMs: 300 });
    const quick = await serveHttp(tool);
    try {
      answer = never;
      const { text } = await run(await connect(quick.url, true), CATCHING);
      expect(text).toBe("denied: write_note: Tool call denied: no answer to the approval request within 300 ms\nwent on\n");
      expect(withdrawn).toEqual([questions[0]!.id]);
    } finally {
      await quick.close();
    }
  });

  it("elicitApprovals: false leaves calls to the tool's own approver, and the description to the tool", async () => {
    const tool = createCodeTool({ environment, transport: createTransport(), tools: [writeNote], onApproval: () => "approve" });
    const own = await serveHttp(tool, { elicitApprovals: false });
    try {
      const client = await connect(own.url, true);
      expect((await client.listTools()).tools[0]!.description).toBe(tool.description);
      expect((await run(client, "from codecall import write_note\nprint(write_note('z'))")).text).toBe("wrote z\n");
      expect(questions).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
