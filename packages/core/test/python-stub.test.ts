import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { isPythonIdentifier } from "../src/guest/python-names.js";
import { pythonGuestFiles } from "../src/guest/python-guest.js";
import { describePythonSignatures, generatePythonModule } from "../src/guest/python-stub.js";
import type { ToolDefinition } from "../src/tool.js";

const tool = (definition: Omit<ToolDefinition, "execute">): ToolDefinition => ({ ...definition, execute: () => null });

const readFile = tool({
  name: "read_file",
  description: 'Reads a file. Quote """like this""" and keep C:\\temp\\new as it is.\nSecond line.',
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to read,\n  relative to the cwd." },
      from: { type: "integer", default: 1, description: "First line (1-based)." },
      limit: { type: "integer", description: "Lines to read; all when omitted." },
      encoding: { type: "string", default: "utf-8" },
    },
    required: ["path"],
  },
  returns: {
    type: "object",
    properties: { content: { type: "string" }, lines: { type: "integer" }, meta: { type: "array", items: { type: "string" } } },
  },
});

const search = tool({
  name: "search",
  description: 'Searches files with a regex like \\d+ """',
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string" },
      "file-path": { type: "string" },
      ignore_case: { type: "boolean", default: false },
      whole_word: { type: "boolean", default: true },
      max_results: { type: "number", default: 2.5 },
      context: { type: "integer", default: 0 },
      quote: { type: "string", default: 'say "hi"\\n\n' },
      tags: { type: "array", items: { type: "string" }, default: ["a"] },
      nothing: { type: ["string", "null"], default: null },
    },
    required: ["pattern", "file-path"],
  },
});

const ping = tool({ name: "ping", description: "", parameters: { type: "object" } });

/** A client module that echoes each call as its result and fails calls to the tool "broken". */
const CLIENT = `
import concurrent.futures

from _codecall_protocol import ToolError, failed_future


def submit(method, params):
    if params.get("name") == "broken":
        return failed_future(ToolError("it broke", code=-32004, tool="broken"))
    future = concurrent.futures.Future()
    future.set_result({"method": method, "params": params})
    return future
`;

const SCRIPT = String.raw`
import asyncio, inspect, json
import codecall
from codecall import read_file, search, ping, call_tool, ToolError

out = {}
out["read_default"] = read_file("a.txt")
out["read_all"] = read_file("a.txt", from_=5, limit=10, encoding="latin-1")
out["read_positional"] = read_file("b.txt", 2, 3)
out["read_explicit_none"] = read_file("c.txt", limit=None)
out["search"] = search("x+", "src/main.py")
out["search_overrides"] = search("y", "f", ignore_case=True, whole_word=False, tags=["t"], nothing="n", context=0)
out["ping"] = ping()
out["call_tool"] = call_tool("read_file", path="z", limit=None)

async def gathered():
    return await asyncio.gather(read_file_async_alias("g.txt"), codecall.search_async("p", "q"), codecall.ping_async())

read_file_async_alias = codecall.read_file_async
out["gathered"] = asyncio.run(gathered())
out["call_tool_async"] = asyncio.run(codecall.call_tool_async("ping", x=1, y=None))

try:
    call_tool("broken")
    out["broken"] = None
except ToolError as error:
    out["broken"] = [str(error), error.code, error.tool, type(error).__module__]

out["sig_read_file"] = str(inspect.signature(read_file))
out["sig_search"] = str(inspect.signature(search))
out["sig_ping"] = str(inspect.signature(ping))
out["sig_read_file_async"] = str(inspect.signature(codecall.read_file_async))
out["is_coroutine"] = inspect.iscoroutinefunction(codecall.read_file_async)
out["doc_read_file"] = read_file.__doc__
out["doc_search"] = search.__doc__
out["all"] = codecall.__all__
print(json.dumps(out))
`;

let dir: string;

function python(...args: string[]): string {
  return execFileSync("python3", args, { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH, PYTHONDONTWRITEBYTECODE: "1" } });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "codecall-stub-"));
  for (const file of pythonGuestFiles({ tools: [readFile, search, ping], clientSource: CLIENT })) writeFileSync(join(dir, file.name), file.data);
  writeFileSync(join(dir, "script.py"), SCRIPT);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sent = (name: string, args: Record<string, unknown>) => ({ method: "tools/call", params: { name, arguments: args } });

describe("generatePythonModule, run by python3", () => {
  let out: Record<string, unknown>;
  beforeAll(() => {
    out = JSON.parse(python("script.py")) as Record<string, unknown>;
  });

  it("compiles", () => {
    expect(python("-m", "py_compile", "codecall.py")).toBe("");
  });

  it("sends required arguments and defaults, and leaves out None-valued ones", () => {
    expect(out.read_default).toEqual(sent("read_file", { path: "a.txt", from: 1, encoding: "utf-8" }));
    expect(out.read_all).toEqual(sent("read_file", { path: "a.txt", from: 5, limit: 10, encoding: "latin-1" }));
    expect(out.read_positional).toEqual(sent("read_file", { path: "b.txt", from: 2, limit: 3, encoding: "utf-8" }));
    expect(out.read_explicit_none).toEqual(sent("read_file", { path: "c.txt", from: 1, encoding: "utf-8" }));
  });

  it("maps Python names back to wire names and renders defaults of each type", () => {
    expect(out.search).toEqual(
      sent("search", {
        pattern: "x+",
        "file-path": "src/main.py",
        ignore_case: false,
        whole_word: true,
        max_results: 2.5,
        context: 0,
        quote: 'say "hi"\\n\n',
      }),
    );
    expect(out.search_overrides).toEqual(
      sent("search", {
        pattern: "y",
        "file-path": "f",
        ignore_case: true,
        whole_word: false,
        max_results: 2.5,
        context: 0,
        quote: 'say "hi"\\n\n',
        tags: ["t"],
        nothing: "n",
      }),
    );
  });

  it("supports tools without parameters and call_tool by name", () => {
    expect(out.ping).toEqual(sent("ping", {}));
    expect(out.call_tool).toEqual(sent("read_file", { path: "z" }));
    expect(out.call_tool_async).toEqual(sent("ping", { x: 1 }));
  });

  it("runs the _async variants under asyncio.gather", () => {
    expect(out.gathered).toEqual([
      sent("read_file", { path: "g.txt", from: 1, encoding: "utf-8" }),
      sent("search", { pattern: "p", "file-path": "q", ignore_case: false, whole_word: true, max_results: 2.5, context: 0, quote: 'say "hi"\\n\n' }),
      sent("ping", {}),
    ]);
    expect(out.is_coroutine).toBe(true);
  });

  it("raises ToolError for failed calls", () => {
    // Raised by the runtime module, known to the script (and its tracebacks) as codecall.ToolError.
    expect(out.broken).toEqual(["broken: it broke", -32004, "broken", "codecall"]);
  });

  it("generates signatures with required parameters first and typed defaults", () => {
    expect(out.sig_read_file).toBe("(path: 'str', from_: 'int' = 1, limit: 'int | None' = None, encoding: 'str' = 'utf-8') -> 'dict'");
    expect(out.sig_read_file_async).toBe(out.sig_read_file);
    expect(out.sig_search).toBe(
      "(pattern: 'str', file_path: 'str', ignore_case: 'bool' = False, whole_word: 'bool' = True, max_results: 'float' = 2.5, " +
        "context: 'int' = 0, quote: 'str' = 'say \"hi\"\\\\n\\n', tags: 'list | None' = None, nothing: 'str | None' = None) -> 'Any'",
    );
    expect(out.sig_ping).toBe("() -> 'Any'");
  });

  it("keeps triple quotes and backslashes of descriptions intact in docstrings", () => {
    const doc = out.doc_read_file as string;
    expect(doc.startsWith('Reads a file. Quote """like this""" and keep C:\\temp\\new as it is.\n    Second line.')).toBe(true);
    expect(doc).toContain("Args:\n        path: Path to read, relative to the cwd.\n        from_: First line (1-based).");
    expect(doc).toContain('Returns:\n        {"content": str, "lines": int, "meta": [str, ...]}');
    expect(doc).toContain("Raises:\n        ToolError: when the call fails.");
    expect(out.doc_search).toContain('Searches files with a regex like \\d+ """');
  });

  it("says in the docstring when a tool needs approval, and that a denial raises ToolError", () => {
    const module = generatePythonModule({
      tools: [
        tool({ name: "always", description: "Always asks.", parameters: { type: "object" }, needsApproval: true }),
        tool({ name: "sometimes", description: "Asks for some.", parameters: { type: "object" }, needsApproval: () => false }),
        tool({ name: "never", description: "Never asks.", parameters: { type: "object" }, needsApproval: false }),
      ],
    });
    const docOf = (name: string) => module.slice(module.indexOf(`def ${name}(`), module.indexOf(`async def ${name}_async(`));
    expect(docOf("always")).toContain(
      "Needs approval: each call waits for the host's decision.\n\n    Raises:\n        ToolError: when the call fails, or is denied approval.",
    );
    expect(docOf("sometimes")).toContain("May need approval, depending on its arguments");
    expect(docOf("never")).not.toContain("pproval");
  });

  it("exports the helpers and both variants of every tool", () => {
    expect(out.all).toEqual([
      "ToolError",
      "call_tool",
      "call_tool_async",
      "read_file",
      "read_file_async",
      "search",
      "search_async",
      "ping",
      "ping_async",
    ]);
  });
});

describe("generatePythonModule: names", () => {
  it.each(["bad-name", "class", "_x", "ToolError", "call_tool", "1abc", "", "with space", "None"])("refuses the tool name %j", (name) => {
    let caught: unknown;
    try {
      generatePythonModule({ tools: [tool({ name, description: "", parameters: { type: "object" } })] });
    } catch (error) {
      caught = error;
    }
    expect(CodecallError.isInstance(caught, "INVALID_TOOL")).toBe(true);
    expect((caught as CodecallError).message).toContain(JSON.stringify(name));
  });

  it("refuses two tools whose names collide in the module", () => {
    const a = tool({ name: "fetch", description: "", parameters: { type: "object" } });
    const b = tool({ name: "fetch_async", description: "", parameters: { type: "object" } });
    expect(() => generatePythonModule({ tools: [a, b] })).toThrow(/same Python name: fetch_async/);
    expect(() => generatePythonModule({ tools: [a, a] })).toThrow(CodecallError);
  });

  it("refuses parameters whose Python names collide", () => {
    const clash = tool({ name: "clash", description: "", parameters: { type: "object", properties: { from: {}, from_: {} } } });
    expect(() => generatePythonModule({ tools: [clash] })).toThrow("Two names in parameters of tool clash map to the same Python name: from_");
  });

  it("renames a parameter that would shadow the helper the stub body calls", () => {
    const shadow = tool({ name: "shadow", description: "", parameters: { type: "object", properties: { _codecall_call: { type: "string" } } } });
    const source = generatePythonModule({ tools: [shadow] });
    expect(source).toContain("def shadow(_codecall_call_: str | None = None) -> Any:");
    expect(source).toContain('return _codecall_call("shadow", {"_codecall_call": _codecall_call_})');
  });

  it("renames a parameter named __debug__, which Python refuses as a parameter, so the module still imports", () => {
    const debug = tool({ name: "trace", description: "", parameters: { type: "object", properties: { __debug__: { type: "boolean" } } } });
    const source = generatePythonModule({ tools: [debug] });
    expect(source).toContain("def trace(__debug___: bool | None = None) -> Any:");
    expect(source).toContain('return _codecall_call("trace", {"__debug__": __debug___})');
    writeFileSync(join(dir, "debug_stub.py"), source);
    expect(python("-m", "py_compile", "debug_stub.py")).toBe("");
  });

  it("escapes a NUL character in a description, which Python refuses anywhere in a source file", () => {
    const nul = tool({
      name: "nul",
      description: "before\u0000after",
      parameters: { type: "object", properties: { x: { type: "string", description: "p\u0000q", default: "d\u0000" } } },
    });
    writeFileSync(join(dir, "nul_stub.py"), generatePythonModule({ tools: [nul] }));
    expect(python("-c", "import json, nul_stub; print(json.dumps([nul_stub.nul.__doc__.split(chr(10))[0], nul_stub.nul.__defaults__]))")).toBe(
      '["before\\u0000after", ["d\\u0000"]]\n',
    );
  });

  it("uses the module name in the module docstring", () => {
    expect(generatePythonModule({ tools: [], moduleName: "tools" }).split("\n")[0]).toBe(
      '"""tools: tools of this run, callable from Python. Generated by codecall; do not edit."""',
    );
  });

  it("tells Python identifiers from other names", () => {
    expect(isPythonIdentifier("read_file")).toBe(true);
    expect(isPythonIdentifier("_private")).toBe(true);
    expect(isPythonIdentifier("for")).toBe(false);
    expect(isPythonIdentifier("a-b")).toBe(false);
    expect(isPythonIdentifier("2x")).toBe(false);
  });
});

describe("describePythonSignatures", () => {
  it("gives one line per tool with signature, return type, first sentence and return shape", () => {
    expect(describePythonSignatures([readFile, ping])).toEqual([
      'read_file(path: str, from_: int = 1, limit: int | None = None, encoding: str = "utf-8") -> dict: Reads a file.' +
        '  Returns {"content": str, "lines": int, "meta": [str, ...]}',
      "ping() -> Any",
    ]);
  });
});

describe("describePythonSignatures: a description without an early full stop", () => {
  it("cuts the summary at 200 characters, never inside a surrogate pair; the docstring keeps it whole", () => {
    const long = tool({ name: "wordy", description: `${"word ".repeat(1_000)}end.`, parameters: { type: "object" } });
    const [line] = describePythonSignatures([long]);
    expect(line).toBe(`wordy() -> Any: ${"word ".repeat(40).slice(0, 199).trimEnd()}…`);
    expect(generatePythonModule({ tools: [long] })).toContain(`${"word ".repeat(1_000)}end.`);
    const emoji = tool({ name: "emoji", description: "x".repeat(198) + "😀".repeat(10), parameters: { type: "object" } });
    expect(describePythonSignatures([emoji])[0]).toBe(`emoji() -> Any: ${"x".repeat(198)}…`);
  });
});

describe("describePythonSignatures: schemas spread over $ref and allOf", () => {
  it("renders the parameters of a zod-style schema whose root is a $ref into definitions", () => {
    const zodStyle = tool({
      name: "get_issue",
      description: "Gets an issue.",
      parameters: {
        $schema: "http://json-schema.org/draft-07/schema#",
        $ref: "#/definitions/Args",
        definitions: {
          Args: { type: "object", properties: { id: { $ref: "#/definitions/Id" }, verbose: { type: "boolean", default: false } }, required: ["id"] },
          Id: { type: "integer", description: "The issue number." },
        },
      },
    });
    expect(describePythonSignatures([zodStyle])).toEqual(["get_issue(id: int, verbose: bool = False) -> Any: Gets an issue."]);
    expect(generatePythonModule({ tools: [zodStyle] })).toContain("        id: The issue number.");
  });

  it("merges the properties and required names of allOf parts", () => {
    const merged = tool({
      name: "move",
      description: "",
      parameters: {
        allOf: [{ type: "object", properties: { from: { type: "string" } }, required: ["from"] }, { $ref: "#/$defs/target" }],
        $defs: { target: { type: "object", properties: { to: { type: "string" } }, required: ["to"] } },
      },
    });
    expect(describePythonSignatures([merged])).toEqual(["move(from_: str, to: str) -> Any"]);
  });

  it("stops at a $ref chain that comes back to itself (it looped until a Set overflowed)", () => {
    const looped = tool({
      name: "looped",
      description: "",
      parameters: {
        type: "object",
        properties: { a: { $ref: "#/properties/a" }, b: { $ref: "#/$defs/b" } },
        $defs: { b: { $ref: "#/properties/b" } },
      },
    });
    expect(describePythonSignatures([looped])).toEqual(["looped(a: Any | None = None, b: Any | None = None) -> Any"]);
  });
});
