import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import type { ToolDefinition } from "@codecall/core";
import { describePythonSignatures, generatePythonModule } from "@codecall/core/protocol";
import { validateAgainstSchema } from "@codecall/core/plugin-kit";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_TOOL_NAMES,
  builtinTools,
  createBuiltinTools,
  patchTool,
  readFileTool,
  searchFilesTool,
  terminalTool,
  writeFileTool,
} from "../src/index.js";
import { useWorkspace } from "./support.js";

const run = promisify(execFile);

/** Arguments each tool's schema must accept, and ones it must refuse (with the argument the issue names). */
const CASES: Record<string, { good: Record<string, unknown>[]; bad: [Record<string, unknown>, string][] }> = {
  terminal: {
    good: [{ command: "ls" }, { command: "ls", timeout: 1, workdir: "/tmp" }, { command: "x", timeout: 3600 }],
    bad: [
      [{}, "command"],
      [{ command: 1 }, "command"],
      [{ command: "" }, "command"],
      [{ command: "ls", timeout: 0 }, "timeout"],
      [{ command: "ls", timeout: 3601 }, "timeout"],
      [{ command: "ls", timeout: 2.5 }, "timeout"],
      [{ command: "ls", timeout: "10" }, "timeout"],
      [{ command: "ls", background: true }, "background"],
      [{ command: "ls", pty: true }, "pty"],
    ],
  },
  read_file: {
    good: [{ path: "a.txt" }, { path: "a.txt", offset: 10, limit: 2000 }],
    bad: [
      [{}, "path"],
      [{ path: "a", offset: 0 }, "offset"],
      [{ path: "a", limit: 2001 }, "limit"],
      [{ path: "a", limit: 0 }, "limit"],
      [{ path: ["a"] }, "path"],
      [{ path: "a", encoding: "utf8" }, "encoding"],
    ],
  },
  write_file: {
    good: [
      { path: "a", content: "" },
      { path: "a/b", content: "x" },
    ],
    bad: [
      [{ path: "a" }, "content"],
      [{ content: "x" }, "path"],
      [{ path: "a", content: { text: "x" } }, "content"],
      [{ path: "", content: "x" }, "path"],
      [{ path: "a", content: "x", mode: 420 }, "mode"],
    ],
  },
  search_files: {
    good: [{ pattern: "x" }, { pattern: "*.py", target: "files", path: "src", file_glob: "a*", limit: 1000, offset: 5 }],
    bad: [
      [{}, "pattern"],
      [{ pattern: "x", target: "dirs" }, "target"],
      [{ pattern: "x", limit: 1001 }, "limit"],
      [{ pattern: "x", offset: -1 }, "offset"],
      [{ pattern: "" }, "pattern"],
      [{ pattern: "x", context: 2 }, "context"],
    ],
  },
  patch: {
    good: [
      { path: "a", old_string: "x", new_string: "" },
      { path: "a", old_string: "x", new_string: "y", replace_all: true },
    ],
    bad: [
      [{ path: "a", old_string: "x" }, "new_string"],
      [{ path: "a", old_string: "", new_string: "y" }, "old_string"],
      [{ path: "a", old_string: "x", new_string: "y", replace_all: "yes" }, "replace_all"],
      [{ path: "a", old_string: "x", new_string: "y", mode: "replace" }, "mode"],
    ],
  },
};

describe("tool schemas", () => {
  const ws = useWorkspace();

  it("lists exactly the five built-in tools, in order", () => {
    expect(builtinTools.map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(builtinTools).toEqual([terminalTool, readFileTool, writeFileTool, searchFilesTool, patchTool]);
    expect(createBuiltinTools().map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  for (const tool of builtinTools) {
    it(`${tool.name}: parameters accept good arguments and refuse bad ones`, () => {
      const cases = CASES[tool.name]!;
      expect(tool.parameters).toMatchObject({ type: "object", additionalProperties: false });
      for (const args of cases.good) expect(validateAgainstSchema(args, tool.parameters), JSON.stringify(args)).toEqual([]);
      for (const [args, argument] of cases.bad) {
        const issues = validateAgainstSchema(args, tool.parameters);
        expect(issues.length, JSON.stringify(args)).toBeGreaterThan(0);
        expect(issues.join("; "), JSON.stringify(args)).toContain(argument);
      }
    });

    it(`${tool.name}: every parameter and result field is described`, () => {
      for (const [name, property] of Object.entries(tool.parameters.properties ?? {})) {
        expect(property.description, `${tool.name}.${name}`).toMatch(/\w/);
      }
      expect(tool.returns).toMatchObject({ type: "object" });
      expect(tool.description.length).toBeGreaterThan(40);
    });
  }

  it("results match each tool's returns schema", async () => {
    await writeFile(ws.at("f.txt"), "one\ntwo\n");
    const results: [ToolDefinition, unknown][] = [
      [terminalTool, await terminalTool.execute({ command: "echo hi" }, ws.context)],
      [readFileTool, await readFileTool.execute({ path: "f.txt" }, ws.context)],
      [writeFileTool, await writeFileTool.execute({ path: "g.txt", content: "x" }, ws.context)],
      [searchFilesTool, await searchFilesTool.execute({ pattern: "o" }, ws.context)],
      [searchFilesTool, await searchFilesTool.execute({ pattern: "*.txt", target: "files" }, ws.context)],
      [patchTool, await patchTool.execute({ path: "f.txt", old_string: "two", new_string: "2" }, ws.context)],
    ];
    for (const [tool, result] of results) {
      expect(validateAgainstSchema(result, tool.returns!), tool.name).toEqual([]);
      // Every documented field is present, and nothing undocumented is returned.
      expect(Object.keys(result as object).sort(), tool.name).toEqual(Object.keys(tool.returns!.properties!).sort());
    }
  });

  it("render as the documented Python signatures", () => {
    const signatures = describePythonSignatures(builtinTools).map((line) => line.slice(0, line.indexOf(" -> ")));
    expect(signatures).toEqual([
      "terminal(command: str, timeout: int = 180, workdir: str | None = None)",
      "read_file(path: str, offset: int = 1, limit: int = 500)",
      "write_file(path: str, content: str)",
      'search_files(pattern: str, target: str = "content", path: str = ".", file_glob: str | None = None, limit: int = 50, offset: int = 0)',
      "patch(path: str, old_string: str, new_string: str, replace_all: bool = False)",
    ]);
  });

  it("generate a guest module that Python compiles", async () => {
    const source = generatePythonModule({ tools: builtinTools });
    await writeFile(ws.at("codecall.py"), source);
    const python = await run("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read()); print('ok')", ws.at("codecall.py")]).catch(
      (error: unknown) => error,
    );
    if (python instanceof Error && (python as NodeJS.ErrnoException).code === "ENOENT") return; // no python3 here
    expect((python as { stdout: string }).stdout).toBe("ok\n");
    expect(source).toContain('Returns:\n        {"output": str, "exit_code": int, "timed_out": bool, "truncated": bool}');
  });
});
