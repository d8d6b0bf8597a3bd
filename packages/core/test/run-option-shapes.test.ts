/**
 * Options of the wrong shape, as JavaScript callers and JSON configs can pass them: refused with
 * INVALID_OPTIONS naming the option and what it takes, before the environment is touched — not
 * a TypeError from deep inside, a run that fails with a stray message, or a meaning of their own.
 */
import { describe, expect, it } from "vitest";
import { createCodeTool } from "../src/code-tool.js";
import { CodecallError } from "../src/errors.js";
import type { ExecuteCodeOptions } from "../src/execute/execute-options.js";
import { useMemoryRuns } from "./support/memory-runs.js";

const { pair, execute, run } = useMemoryRuns();
const quiet = () => {};

describe("executeCode options of the wrong shape", () => {
  it.each([
    [{ tools: {} }, "tools must be a list of tool definitions, got an object"],
    [{ allowedTools: "terminal" }, 'allowedTools must be a list of names (strings), got the string "terminal"'],
    [{ allowedTools: [1] }, "allowedTools must be a list of names (strings), got a list"],
    [{ env: { passthrough: "HOME" } }, 'env.passthrough must be a list of names (strings), got the string "HOME"'],
    [{ env: [] }, "env must be an object ({ passthrough?, set?, host? }), got a list"],
    [{ env: { set: "A=1" } }, 'env.set must be an object of variable names to values, got the string "A=1"'],
    [{ signal: {} }, "signal must be an AbortSignal, got an object"],
    [{ signal: true }, "signal must be an AbortSignal, got boolean true"],
    [{ cwd: 5 }, "cwd must be a non-empty string, got number 5"],
    [{ interpreter: "" }, 'interpreter must be a non-empty string, got the string ""'],
    [{ scriptName: null }, "scriptName must be a non-empty string, got null"],
    [{ onEvent: 5 }, "onEvent must be a function, got number 5"],
    [{ onStdout: "log" }, 'onStdout must be a function, got the string "log"'],
    [{ redactSecrets: "yes" }, 'redactSecrets must be true or false, got the string "yes"'],
  ])("refuses %j", async (options, message) => {
    const memory = pair(quiet);
    const error = await execute(memory, options as unknown as Partial<ExecuteCodeOptions>).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    expect((error as Error).message).toBe(message);
  });

  it("createCodeTool refuses tools of the wrong shape the same way", () => {
    const memory = pair(quiet);
    expect(() => createCodeTool({ environment: memory.environment, transport: memory.transport, tools: "all" } as never)).toThrow(
      'tools must be a list of tool definitions, got the string "all"',
    );
  });

  it.each([
    [5, "No code to run: code must be a string of Python source, got a number."],
    [["print(1)"], "No code to run: code must be a string of Python source, got a list."],
    [undefined, "No code provided."],
    ["  ", "No code provided."],
  ])("answers code %j with a failed result that says why", async (code, error) => {
    const result = await run(quiet, { code } as unknown as Partial<ExecuteCodeOptions>);
    expect(result).toMatchObject({ status: "error", error });
  });
});
