// The CLI explains itself: help for every command, the tools and the stub a script gets, the
// config file found and checked, tracebacks that name the user's file, MCP servers' tools in runs.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

const ISSUES_SERVER = path.resolve(import.meta.dirname, "../../mcp/test/fixtures/issues-server.mjs");
const MCP_FLAG = `${process.execPath} ${ISSUES_SERVER}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-explains-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("help", () => {
  it.each([
    [["run", "--help"], "codecall run FILE|- [options]"],
    [["tools", "--help"], "codecall tools — list the tools"],
    [["stub", "--help"], "codecall stub — print the Python module"],
    [["mcp", "--help"], "codecall mcp serve [options]"],
    [["mcp", "serve", "--help"], '"mcpServers": { "codecall": { "command": "npx"'],
    [["mcp", "serve", "--help"], "--session                 keep a Python session per client connection"],
    [["repl", "--help"], "codecall repl [run options]"],
  ])("codecall %j prints its help and exits 0", async (args, expected) => {
    const result = await runCli(args, { cwd: dir });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain(expected);
  });

  it("an unknown flag is named with the closest known one, and the command's help", async () => {
    const result = await runCli(["tools", "--tols", "x.mjs"], { cwd: dir });
    expect(result).toMatchObject({
      code: 2,
      stderr: "codecall: Unknown option --tols. Did you mean --tools?\nRun `codecall tools --help` for the options.\n",
    });
    expect((await runCli(["mcp", "launch"], { cwd: dir })).stderr).toContain('Unknown command "mcp launch"');
  });
});

describe("codecall tools and codecall stub", () => {
  it("lists the built-in tools and an MCP server's tools with their Python signatures", async () => {
    const result = await runCli(["tools", "--mcp", MCP_FLAG], { cwd: dir });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^terminal\(command: str, timeout: int = 180/);
    expect(lines).toContain("add(a: float, b: float) -> Any: Adds two numbers.");
    expect(lines).toContain("print_tool(text: str) -> Any: A tool whose name is a Python builtin.");
    expect(result.stdout).toContain('get_issue(number: int, repo: str = "codecall") -> dict: Fetches one issue by number.  Returns {"number": int');
  });

  it("--json gives the definitions; --allow-tools narrows them and names a misspelt one", async () => {
    const json = await runCli(["tools", "--json", "--allow-tools", "read_file,patch"], { cwd: dir });
    expect((JSON.parse(json.stdout) as { name: string }[]).map((tool) => tool.name)).toEqual(["read_file", "patch"]);
    const typo = await runCli(["tools", "--allow-tools", "red_file"], { cwd: dir });
    expect(typo).toMatchObject({
      code: 2,
      stderr:
        "codecall: --allow-tools names unknown tools: red_file (did you mean read_file?). Tools: patch, read_file, search_files, terminal, write_file\n",
    });
  });

  it("prints the generated module, which Python compiles", async () => {
    const result = await runCli(["stub", "--no-builtin-tools", "--mcp", MCP_FLAG], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('def get_issue(number: int, repo: str = "codecall") -> dict:');
    expect(result.stdout).toContain('__all__ = ["ToolError", "call_tool", "call_tool_async", "get_issue", "get_issue_async"');
    await writeFile(path.join(dir, "stub_check.py"), result.stdout);
    const compiled = await runCli(["run", "-"], {
      cwd: dir,
      stdin: `import ast\nast.parse(open(${JSON.stringify(path.join(dir, "stub_check.py"))}).read())\nprint("ok")`,
    });
    expect(compiled.stdout).toBe("ok\n");
  });
});

describe("the config file", () => {
  it("codecall.config.json in the working directory is found: its mcpServers bring tools, prefixed by their key", async () => {
    const project = await mkdtemp(path.join(dir, "project-"));
    await writeFile(
      path.join(project, "codecall.config.json"),
      JSON.stringify({ builtinTools: false, mcpServers: { issues: { command: process.execPath, args: [ISSUES_SERVER], env: { DEMO: "1" } } } }),
    );
    await writeFile(path.join(project, "my_script.py"), "from codecall import issues_get_issue, ToolError\nprint(issues_get_issue(8)['state'])\n");
    const result = await runCli(["run", "my_script.py"], { cwd: project });
    expect(result).toMatchObject({ code: 0, stdout: "closed\n" });
  });

  it("a misspelt key is refused with the closest known one, before anything starts", async () => {
    const project = await mkdtemp(path.join(dir, "typo-"));
    await writeFile(path.join(project, "codecall.config.json"), JSON.stringify({ timout: 5 }));
    const result = await runCli(["run", "-"], { cwd: project, stdin: "print(1)" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `codecall: ${path.join(project, "codecall.config.json")}: unknown key "timout". Did you mean "timeout"? Known keys: $schema, backend, backendOptions, transport, timeout, maxToolCalls, tools, allowTools, builtinTools, cwd, envPassthrough, interpreter, mcpServers, requireApproval, approveAll, approvalTimeout\n`,
    );
  });

  it.each([
    [{ mcpServers: { gh: { comand: "x" } } }, 'mcpServers.gh: unknown key "comand". Did you mean "command"?'],
    [{ mcpServers: { gh: {} } }, 'mcpServers.gh needs either a "command" or a "url"'],
    [{ mcpServers: { gh: { command: "x", args: "a b" } } }, "mcpServers.gh.args must be a list of strings"],
    [{ tools: "./t.mjs" }, '"tools" must be a string list, got "./t.mjs"'],
    [{ toString: 1 }, 'unknown key "toString".'],
    [JSON.parse('{"__proto__": {"timeout": 1}}'), 'unknown key "__proto__".'],
  ])("an mcpServers entry or a value of the wrong shape is refused: %j", async (config, message) => {
    const file = path.join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(config));
    const result = await runCli(["run", "--config", file, "-"], { cwd: dir, stdin: "print(1)" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it.each([
    ["a directory", (dir: string) => dir, "Cannot read the config file DIR: EISDIR"],
    ["missing", (dir: string) => path.join(dir, "missing.json"), "Cannot read the config file DIR/missing.json: ENOENT"],
    ["not JSON", (dir: string) => path.join(dir, "broken.json"), "Invalid config file DIR/broken.json: "],
    ["a JSON list", (dir: string) => path.join(dir, "list.json"), "Invalid config file DIR/list.json: it must hold a JSON object"],
  ])("a config file that is %s is a command-line error that says why", async (_case, file, message) => {
    await writeFile(path.join(dir, "broken.json"), "{");
    await writeFile(path.join(dir, "list.json"), "[]");
    const result = await runCli(["run", "--config", file(dir), "-"], { cwd: dir, stdin: "print(1)" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`codecall: ${message.replace("DIR", dir)}`);
  });
});

describe("codecall run", () => {
  it("--mcp brings an MCP server's tools into the script, and a server's error is a ToolError", async () => {
    const code =
      "from codecall import get_issue, ToolError\nprint(get_issue(7)['title'])\ntry:\n    get_issue(99)\nexcept ToolError as e:\n    print(e)";
    const result = await runCli(["run", "--no-builtin-tools", "--mcp", MCP_FLAG, "-"], { cwd: dir, stdin: code });
    expect(result).toMatchObject({ code: 0, stdout: "Tracebacks name the run dir\nget_issue: issue 99 does not exist in codecall\n" });
  });

  it("an MCP server that cannot start is named, and the run does not start", async () => {
    const result = await runCli(["run", "--mcp", "/nonexistent/mcp-server --stdio", "-"], { cwd: dir, stdin: "print(1)" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^codecall: MCP server \/nonexistent\/mcp-server --stdio: Could not connect/);
    expect(result.stdout).toBe("");
  });

  it("a traceback names the script as the user gave it, with its lines, not the run dir's copy", async () => {
    await writeFile(path.join(dir, "my_script.py"), "def f():\n    raise ValueError('boom')\nf()\n");
    const result = await runCli(["run", "my_script.py"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Traceback (most recent call last):\n  File "my_script.py", line 3, in <module>\n    f()\n  File "my_script.py", line 2, in f\n    raise ValueError('boom')\nValueError: boom\n`,
    );
    expect(result.stderr).not.toMatch(/codecall-|_codecall_main/);
    const json = JSON.parse((await runCli(["run", "--json", "-"], { cwd: dir, stdin: "x = (\n" })).stdout) as { output: string };
    expect(json.output).toContain('File "<stdin>", line 1');
  });
});
