// `codecall mcp serve --require-approval` driven by the real SDK Client over stdio, with and without
// an elicitation handler: the client is asked, or the calls are denied (and the description says
// which), `--approve-all` approves, `--approval-timeout` bounds a question, and a client that
// leaves while a question is open ends the run and the server.
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, processAlive } from "./support.js";

async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Served {
  client: Client;
  pid: number;
  stderr: () => string;
  questions: ElicitRequest[];
}

let scratch: string;
const started: Client[] = [];

beforeEach(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "codecall-mcp-approvals-"));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((client) => client.close()));
  await rm(scratch, { recursive: true, force: true });
});

/** Starts `codecall mcp serve ARGS` (built-in tools only) and connects; `answer` makes the client support elicitation. */
async function serve(args: string[], answer?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "serve", ...args],
    cwd: scratch,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "cli-approvals-test", version: "1.0.0" }, answer ? { capabilities: { elicitation: {} } } : {});
  const questions: ElicitRequest[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request);
      return answer(request);
    });
  }
  await client.connect(transport);
  started.push(client);
  return { client, pid: transport.pid!, stderr: () => stderr, questions };
}

async function run(client: Client, code: string): Promise<string> {
  const result = await client.callTool({ name: "execute_code", arguments: { code } }, undefined, { timeout: 60_000 });
  return (result.content as { text: string }[])[0]!.text;
}

const WRITE = [
  "from codecall import write_file, ToolError",
  "try:",
  "    print(write_file('note.txt', 'hi')['bytes_written'])",
  "except ToolError as error:",
  "    print('denied:', error)",
].join("\n");

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe("codecall mcp serve --require-approval", () => {
  it("asks a client that supports elicitation; an approved call runs, and -v logs the decision", async () => {
    const { client, stderr, questions } = await serve(["--require-approval", "write_file", "-v"], () => ({
      action: "accept",
      content: { decision: "approve" },
    }));
    const [tool] = (await client.listTools()).tools;
    expect(tool!.description).toContain("Approval: calls to write_file need approval. Such a call waits until it is decided");
    expect(await run(client, WRITE)).toBe("2\n");
    expect(await readFile(path.join(scratch, "note.txt"), "utf8")).toBe("hi");
    expect(questions).toHaveLength(1);
    expect(questions[0]!.params.message).toContain('write_file({"path":"note.txt","content":"hi"})');
    await waitFor(() => stderr().includes("codecall: approval of write_file: approved (handler"), "the decision logged");
    expect(stderr()).toContain("calls needing approval are asked of the client, or denied");
  });

  it("denies the calls of a client without elicitation, says so in the description, and tells the operator once", async () => {
    const { client, stderr } = await serve(["--require-approval", "write_file"]);
    const [tool] = (await client.listTools()).tools;
    expect(tool!.description).toContain("Approval: calls to write_file need approval, which nobody can give in this run");
    expect(await run(client, WRITE)).toBe(
      "denied: write_file: Tool call denied: write_file needs approval, and nobody can approve calls in this run\n",
    );
    expect(await run(client, WRITE)).toMatch(/^denied: /);
    expect(await exists(path.join(scratch, "note.txt"))).toBe(false);
    await waitFor(() => stderr().includes("codecall: execute_code success"), "the runs logged");
    const notes = stderr().match(/write_file needs approval; denied because the MCP client cannot be asked \(it does not support elicitation\)/g);
    expect(notes).toHaveLength(1);
  });

  it("--approve-all approves without asking, even a client that could be asked", async () => {
    const { client, questions, stderr } = await serve(["--require-approval", "write_file", "--approve-all"], () => ({ action: "decline" }));
    expect(await run(client, WRITE)).toBe("2\n");
    expect(questions).toEqual([]);
    expect(stderr()).toContain("calls needing approval are approved (--approve-all)");
  });

  it("--approval-timeout denies a question nobody answers", async () => {
    const { client } = await serve(["--require-approval", "write_file", "--approval-timeout", "0.5"], () => new Promise<ElicitResult>(() => {}));
    expect(await run(client, WRITE)).toBe("denied: write_file: Tool call denied: no answer to the approval request within 500 ms\n");
    expect(await exists(path.join(scratch, "note.txt"))).toBe(false);
  });

  it("a client that closes while a question is open ends the run and the server", async () => {
    const { client, pid, stderr, questions } = await serve(["--require-approval", "write_file"], () => new Promise<ElicitResult>(() => {}));
    void client.callTool({ name: "execute_code", arguments: { code: WRITE } }).catch(() => {});
    await waitFor(() => questions.length === 1, "the question reached the client");
    await client.close();
    await waitFor(() => !processAlive(pid), "codecall mcp serve gone");
    expect(stderr()).toContain("codecall: execute_code interrupted");
    expect(await exists(path.join(scratch, "note.txt"))).toBe(false);
  });
});
