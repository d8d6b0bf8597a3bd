// createCodeTool() as an agent platform uses it: register name/description/parameters, call
// execute({ code }) with nothing but an optional signal, get results (never exceptions) back.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodeTool, defineTool } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { builtinTools } from "@codecall/tools";

let workdir;
let environment;
const stalled = { started: 0, cancelled: [] };

const lookup = defineTool({
  name: "lookup",
  description: "Looks a key up in the host's store.",
  parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"], additionalProperties: false },
  returns: { type: "object", properties: { key: { type: "string" }, value: { type: "integer" } } },
  execute: async ({ key }) => ({ key, value: key.length }),
});

const stall = defineTool({
  name: "stall",
  description: "Never answers until cancelled.",
  parameters: { type: "object", properties: {}, additionalProperties: false },
  execute: (_args, { signal }) =>
    new Promise((_resolve, reject) => {
      stalled.started += 1;
      signal.addEventListener("abort", () => {
        stalled.cancelled.push(signal.reason);
        reject(new Error("cancelled"));
      });
    }),
});

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), "codecall-code-tool-"));
  environment = createEnvironment({ cwd: workdir });
});

afterAll(async () => {
  await environment?.close();
  await rm(workdir, { recursive: true, force: true });
});

describe("createCodeTool end to end", () => {
  it("tells the model what it can import and runs the model's script with those tools", async () => {
    const tool = createCodeTool({
      environment,
      transport: createTransport(),
      tools: [...builtinTools, lookup],
      allowedTools: ["lookup", "write_file"],
    });
    expect(tool.description).toContain("lookup(key: str)");
    expect(tool.description).not.toContain("terminal(");

    const result = await tool.execute({
      code: [
        "from codecall import lookup, write_file, ToolError",
        "print(sum(lookup(k)['value'] for k in ['a', 'bb', 'ccc']))",
        "write_file('note.txt', 'hi')",
        "try:",
        "    from codecall import terminal",
        "except ImportError:",
        "    print('no terminal')",
      ].join("\n"),
    });
    expect(result).toMatchObject({ status: "success", output: "6\nno terminal\n", toolCallsMade: 4, backend: "local", transport: "uds" });
  });

  it("returns a script failure as a result with the traceback", async () => {
    const tool = createCodeTool({ environment, transport: createTransport(), tools: [lookup] });
    const result = await tool.execute({ code: "from codecall import lookup\nlookup(7)\n" });
    expect(result.status).toBe("error");
    expect(result.output).toContain("ToolError");
    expect(result.output).toMatch(/key.*string/i);
  });

  it("interrupts the script and cancels the in-flight tool when the platform's signal aborts", async () => {
    const tool = createCodeTool({ environment: () => environment, transport: createTransport(), tools: [stall] });
    const controller = new AbortController();
    const running = tool.execute(
      { code: "from codecall import stall\nprint('calling', flush=True)\nstall()\nprint('never')\n" },
      { signal: controller.signal },
    );
    await expect.poll(() => stalled.started, { timeout: 10_000 }).toBe(1);
    controller.abort();
    const result = await running;
    expect(result.status).toBe("interrupted");
    expect(result.output).toContain("calling");
    expect(result.output).not.toContain("never");
    expect(stalled.cancelled).toHaveLength(1);
  });
});
