/**
 * codeTool's parts the model meets before and after a run: the input it must send, and the text
 * it reads back for each way a run can end.
 */
import type { ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { createEnvironment } from "@codecall/backend-local";
import { asSchema } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { codeResultToModelOutput, codeTool } from "../src/index.js";

const base: ExecuteCodeResult = {
  status: "success",
  output: "42\n",
  exitCode: 0,
  toolCallsMade: 1,
  durationSeconds: 0.25,
  stdoutTruncated: false,
  stdoutBytesTotal: 3,
  stdoutBytesCaptured: 3,
  stdoutBytesOmitted: 0,
  stderr: "",
  stderrTruncated: false,
  backend: "local",
  transport: "uds",
};

describe("codeResultToModelOutput", () => {
  it("leads a success with its status, then the output", () => {
    expect(codeResultToModelOutput(base)).toEqual({ type: "text", value: "status: success (1 tool call, 0.25 s)\noutput:\n42\n" });
    expect(codeResultToModelOutput({ ...base, output: "", toolCallsMade: 0 })).toEqual({
      type: "text",
      value: "status: success (0 tool calls, 0.25 s)\noutput: (the script printed nothing)",
    });
  });

  it("marks every other ending as an error result with the reason", () => {
    const failed = codeResultToModelOutput({
      ...base,
      status: "error",
      exitCode: 1,
      error: "Script exited with code 1: boom",
      output: "Traceback...",
    });
    expect(failed).toEqual({
      type: "error-text",
      value: "status: error (exit code 1, 1 tool call, 0.25 s)\nerror: Script exited with code 1: boom\noutput:\nTraceback...",
    });
    const timedOut = codeResultToModelOutput({ ...base, status: "timeout", exitCode: null, error: "Script timed out after 5s and was killed." });
    expect(timedOut).toMatchObject({
      type: "error-text",
      value: expect.stringMatching(/^status: timeout \(1 tool call, 0\.25 s\)\nerror: Script timed out/) as string,
    });
    const interrupted = codeResultToModelOutput({ ...base, status: "interrupted", error: "Script was interrupted" });
    expect(interrupted).toMatchObject({
      type: "error-text",
      value: expect.stringMatching(/^status: interrupted .*\nerror: Script was interrupted\n/) as string,
    });
  });
});

describe("codeTool", () => {
  const environment = createEnvironment();
  const executeCode = codeTool({ environment, transport: createTransport() });
  afterAll(() => environment.close());

  it("offers the model an object with one string, code, and the description createCodeTool writes", async () => {
    const input = asSchema(executeCode.inputSchema);
    expect(await input.jsonSchema).toMatchObject({ type: "object", properties: { code: { type: "string" } }, required: ["code"] });
    expect(executeCode.description).toMatch(/^Run a Python 3 script/);
    expect(executeCode.description).toContain("No tools are available in this environment");
  });

  it("refuses input without code, or with anything else, naming the problem", async () => {
    const input = asSchema(executeCode.inputSchema);
    expect(await input.validate!({ code: "print(1)" })).toEqual({ success: true, value: { code: "print(1)" } });
    for (const wrong of [{}, { code: 3 }, { code: "x", extra: true }]) {
      const result = await input.validate!(wrong);
      expect(result.success).toBe(false);
      expect(!result.success && result.error.message).toMatch(/^Invalid execute_code input: /);
    }
  });
});
