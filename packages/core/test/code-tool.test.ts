import { describe, expect, it } from "vitest";
import { createCodeTool, describeCodeTool } from "../src/code-tool.js";
import { resolveLimits } from "../src/execute/limits.js";
import { describePythonSignatures } from "../src/guest/python-stub.js";
import type { JSONSchema } from "../src/schema/json-schema.js";
import type { ToolDefinition } from "../src/tool.js";
import type { Transport } from "../src/transport.js";
import { fakeEnvironment } from "./support/rpc.js";

const tool = (name: string, description: string, properties: Record<string, JSONSchema> = {}, required: string[] = []): ToolDefinition => ({
  name,
  description,
  parameters: { type: "object", properties, required },
  execute: () => null,
});

/** Never used: describing the tool does not touch the transport. */
const transport = { specificationVersion: "v1", id: "none" } as unknown as Transport;

const terminal = tool(
  "terminal",
  "Runs a shell command. Output is captured.",
  { command: { type: "string" }, timeout: { type: "integer", default: 60 } },
  ["command"],
);
const readFile = tool("read_file", "Reads a file.", { path: { type: "string" } }, ["path"]);
const webSearch = tool("web_search", "Searches the web.", { query: { type: "string" } }, ["query"]);

describe("describeCodeTool", () => {
  it("lists every tool's signature and the limits", () => {
    const tools = [readFile, webSearch, terminal];
    const text = describeCodeTool(tools, resolveLimits());
    for (const signature of describePythonSignatures(tools)) expect(text).toContain(`\n  ${signature}\n`.trimEnd());
    expect(text).toContain("read_file(path: str) -> Any: Reads a file.");
    expect(text).toContain("terminal(command: str, timeout: int = 60) -> Any: Runs a shell command.");
    expect(text).toContain("Import the tools with `from codecall import read_file, web_search, ...`. Available:");
    expect(text).toContain("A failed call raises codecall.ToolError.");
    expect(text).toContain(
      "Limits: 5-minute timeout, 50 KB stdout cap (head and tail kept; the whole output, up to 5 MB, is saved to a file the notice names), max 50 tool calls per script.",
    );
    expect(text).toContain("terminal() is foreground-only");
  });

  it("says when no tools are available", () => {
    const text = describeCodeTool([], resolveLimits());
    expect(text).toContain("No tools are available in this environment; the script runs plain Python.");
    expect(text).not.toContain("Import the tools");
    expect(text).toContain("max 50 tool calls per script.");
  });

  it("uses the module name and formats other limits", () => {
    const text = describeCodeTool([readFile], resolveLimits({ timeoutMs: 90_000, maxStdoutBytes: 500, maxToolCalls: 7, spillBytes: 0 }), "tools");
    expect(text).toContain("Import the tools with `from tools import read_file`. Available:");
    expect(text).toContain("A failed call raises tools.ToolError.");
    expect(text).toContain("Limits: 90-second timeout, 500 bytes stdout cap (head and tail kept), max 7 tool calls per script.");
    expect(text).not.toContain("foreground-only");
  });
});

describe("createCodeTool", () => {
  it("builds an execute_code tool that takes code and describes only the allowed tools", () => {
    const codeTool = createCodeTool({
      environment: fakeEnvironment,
      transport,
      tools: [readFile, webSearch, terminal],
      allowedTools: ["web_search"],
    });
    expect(codeTool.name).toBe("execute_code");
    expect(codeTool.parameters).toMatchObject({ type: "object", required: ["code"], additionalProperties: false });
    expect(codeTool.description).toContain("web_search(query: str)");
    expect(codeTool.description).not.toContain("read_file");
    expect(codeTool.description).not.toContain("terminal");
  });

  it("takes a custom name, module name and limits", () => {
    const codeTool = createCodeTool({
      environment: fakeEnvironment,
      transport,
      tools: [],
      name: "run_python",
      moduleName: "host",
      limits: { maxToolCalls: 3 },
    });
    expect(codeTool.name).toBe("run_python");
    expect((codeTool.parameters.properties?.code as { description: string }).description).toContain("from host import ...");
    expect(codeTool.description).toContain("max 3 tool calls per script.");
  });
});

describe("createCodeTool({ session })", () => {
  it("tells the model that state persists, how long an idle session lives, and offers reset", async () => {
    const codeTool = createCodeTool({ environment: fakeEnvironment, transport, tools: [readFile], session: { idleMs: 600_000 } });
    expect(codeTool.keepsState).toBe(true);
    expect(codeTool.description).toContain(
      "State persists between calls in this conversation: one Python session runs every script, so variables, imports, functions\n" +
        "and open files from earlier calls are still there (load data once, then query it call after call).\n" +
        "Pass reset: true to start from a fresh session. The session ends after 10 minutes without a call, and the result says when earlier state was lost.",
    );
    // The rest of the description is as without sessions.
    expect(codeTool.description).toContain("read_file(path: str) -> Any: Reads a file.");
    expect(codeTool.describe({ canApprove: true })).toContain("State persists between calls");
    expect(codeTool.parameters).toEqual({
      type: "object",
      properties: {
        code: expect.objectContaining({ type: "string" }) as unknown,
        reset: { type: "boolean", description: "Start from a fresh Python session (drop all earlier state) before running code." },
      },
      required: ["code"],
      additionalProperties: false,
    });
    await codeTool.close();
  });

  it("says nothing of state, and takes no reset, without the option", async () => {
    const codeTool = createCodeTool({ environment: fakeEnvironment, transport, tools: [readFile] });
    expect(codeTool.keepsState).toBe(false);
    expect(codeTool.description).not.toContain("State persists");
    expect(Object.keys(codeTool.parameters.properties ?? {})).toEqual(["code"]);
    await codeTool.close();
    await codeTool.endConversation("anything");
  });

  it("refuses pool options it cannot honour at once", () => {
    expect(() => createCodeTool({ environment: fakeEnvironment, transport, session: { maxSessions: 0 } })).toThrow(/maxSessions/);
  });

  it("refuses calls once closed", async () => {
    const codeTool = createCodeTool({ environment: fakeEnvironment, transport, session: true });
    await codeTool.close();
    await expect(codeTool.execute({ code: "print(1)" })).rejects.toMatchObject({ code: "SESSION_CLOSED" });
  });
});

describe("tools that need approval, in the description the model reads", () => {
  const write = { ...tool("write_file", "Writes a file.", { path: { type: "string" } }, ["path"]), needsApproval: true };
  const shell = { ...tool("shell", "Runs a command.", { command: { type: "string" } }, ["command"]), needsApproval: () => true };

  it("names them and says a denial raises ToolError, when calls can be approved", () => {
    const codeTool = createCodeTool({ environment: fakeEnvironment, transport, tools: [readFile, write, shell], onApproval: () => true });
    expect(codeTool.description).toContain(
      "Approval: calls to write_file and some calls to shell (depending on their arguments) need approval. Such a call waits until it is decided " +
        "and raises ToolError when denied; the message says why. Catch it and go on; do not retry a denied call.",
    );
  });

  it("says such calls are always denied when nobody can approve them (fail closed)", () => {
    const codeTool = createCodeTool({ environment: fakeEnvironment, transport, tools: [write] });
    expect(codeTool.description).toContain(
      "Approval: calls to write_file need approval, which nobody can give in this run: they raise ToolError (denied).",
    );
    expect(describeCodeTool([write], resolveLimits())).toBe(codeTool.description);
  });

  it("describes itself for either case, for a platform that learns per connection who can approve", () => {
    const closed = createCodeTool({ environment: fakeEnvironment, transport, tools: [write] });
    expect(closed.canApprove).toBe(false);
    expect(closed.describe({ canApprove: false })).toBe(closed.description);
    const open = closed.describe({ canApprove: true });
    expect(open).toContain("Approval: calls to write_file need approval. Such a call waits until it is decided");
    expect(open).toBe(createCodeTool({ environment: fakeEnvironment, transport, tools: [write], canApprove: true }).description);
    expect(createCodeTool({ environment: fakeEnvironment, transport, tools: [write], onApproval: () => true }).canApprove).toBe(true);
  });

  it("says nothing about approval when no tool needs it", () => {
    const text = describeCodeTool([readFile, { ...terminal, needsApproval: false }], resolveLimits(), "codecall", { canApprove: true });
    expect(text).not.toContain("pproval");
  });
});
