import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

describe("codecall run", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const script = async (name: string, code: string) => {
    const file = path.join(dir, name);
    await writeFile(file, code);
    return file;
  };

  it("streams the output of a script that calls the built-in tools, and exits 0", async () => {
    const file = await script("ok.py", 'from codecall import terminal\nprint(terminal("echo from-terminal")["output"].strip())\nprint("done")\n');
    const result = await runCli(["run", file]);
    expect(result).toMatchObject({ code: 0, stdout: "from-terminal\ndone\n", stderr: "" });
  });

  it("reads the script from stdin with -", async () => {
    const result = await runCli(["run", "-"], { stdin: "print(6 * 7)\n" });
    expect(result.stdout).toBe("42\n");
    expect(result.code).toBe(0);
  });

  it("prints the result as JSON with --json", async () => {
    const result = await runCli(["run", "--json", "-"], { stdin: 'import sys\nprint("out")\nsys.exit(2)\n' });
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(json).slice(0, 6)).toEqual(["status", "output", "exitCode", "toolCallsMade", "durationSeconds", "error"]);
    expect(json).toMatchObject({ status: "error", output: "out\n", exitCode: 2, toolCallsMade: 0, error: "Script exited with code 2" });
  });

  it("omits error from the JSON of a success", async () => {
    const json = JSON.parse((await runCli(["run", "--json", "-"], { stdin: "print(1)" })).stdout) as Record<string, unknown>;
    expect(json.status).toBe("success");
    expect("error" in json).toBe(false);
  });

  it("exits 1 with the traceback on stderr when the script fails", async () => {
    const result = await runCli(["run", "-"], { stdin: "1/0\n" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("ZeroDivisionError: division by zero");
    expect(result.stderr).toMatch(/codecall: error — Script exited with code 1: ZeroDivisionError/);
  });

  it("exits 124 on --timeout", async () => {
    const result = await runCli(["run", "--timeout", "5", "-"], { stdin: "import time\nprint('started', flush=True)\ntime.sleep(60)\n" });
    expect(result.code).toBe(124);
    expect(result.stdout).toBe("started\n");
    expect(result.stderr).toContain("Script timed out after 5s and was killed.");
  });

  it("exits 130 and interrupts cleanly on Ctrl-C", async () => {
    let sent = false;
    const result = await runCli(["run", "-"], {
      stdin: "import time\nprint('waiting', flush=True)\ntime.sleep(60)\n",
      onStdout: (text, child) => {
        if (!sent && text.includes("waiting")) {
          sent = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("interrupting the script");
    expect(result.stderr).toContain("codecall: interrupted");
  });

  it("takes a timeout longer than a timer can hold (25 days) as it is: a quick script succeeds", async () => {
    const result = await runCli(["run", "--timeout", "2200000", "--json", "-"], { stdin: "import time\ntime.sleep(0.5)\nprint('slept')\n" });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "success", output: "slept\n" });
  });

  it("enforces --max-tool-calls", async () => {
    const result = await runCli(["run", "--max-tool-calls", "1", "--json", "-"], {
      stdin: "from codecall import terminal, ToolError\nterminal('true')\ntry:\n    terminal('true')\nexcept ToolError as e:\n    print(e.message)\n",
    });
    const json = JSON.parse(result.stdout) as { output: string; toolCallsMade: number };
    expect(json.toolCallsMade).toBe(1);
    expect(json.output).toBe("Tool call limit reached (1). No more tool calls allowed in this execution.\n");
  });

  it("runs in --cwd", async () => {
    const result = await runCli(["run", "--cwd", dir, "-"], { stdin: "import os\nprint(os.getcwd())\n" });
    expect(result.stdout.trim()).toBe(dir);
  });

  it("adds tools from a JavaScript module and a TypeScript module", async () => {
    await writeFile(
      path.join(dir, "extra.mjs"),
      'export default [{ name: "shout", description: "Upper-cases text.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, execute: ({ text }) => text.toUpperCase() }];\n',
    );
    await writeFile(
      path.join(dir, "typed.ts"),
      'interface Args { a: number; b: number }\nexport const add = { name: "add", description: "Adds.", parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] }, execute: ({ a, b }: Args): number => a + b };\n',
    );
    const result = await runCli(["run", "--tools", "./extra.mjs", "--tools", "./typed.ts", "-"], {
      cwd: dir,
      stdin: "from codecall import shout, add\nprint(shout('hey'), add(2, 3))\n",
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("HEY 5\n");
  });

  it("explains a tools module that exports no tools, or a list with something else in it", async () => {
    await writeFile(path.join(dir, "empty.mjs"), "export const answer = 42;\n");
    const result = await runCli(["run", "--tools", "./empty.mjs", "-"], { cwd: dir, stdin: "print(1)" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("exports no tool definitions");
    await writeFile(path.join(dir, "mixed.mjs"), "export const tools = [{ name: 'half' }];\n");
    const mixed = await runCli(["run", "--tools", "./mixed.mjs", "-"], { cwd: dir, stdin: "print(1)" });
    expect(mixed.stderr).toContain("export tools holds something that is not a tool definition");
  });

  it.each([
    ["a getter that throws", 'export default { get name() { throw new Error("getter boom"); } };\n', "getter boom"],
    ["a throw of a non-Error at import", 'throw "plain text thrown";\n', "plain text thrown"],
    [
      "an export that is almost a tool",
      'export const lookup = { name: "lookup", description: "d", parameters: { type: "object" } };\n',
      "export lookup is not a tool definition: it has no execute function",
    ],
  ])("explains %s in a tools module in one line, without a stack trace", async (_case, source, message) => {
    await writeFile(path.join(dir, "odd.mjs"), source);
    const result = await runCli(["run", "--tools", "./odd.mjs", "-"], { cwd: dir, stdin: "print(1)" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain("unexpected failure");
  });

  it("keeps terminal escape sequences of tools and errors off the terminal: tools listing, error lines", async () => {
    await writeFile(
      path.join(dir, "painted.mjs"),
      'export const t = { name: "t", description: "Paints\\u001b[2J\\u001b]52;c;aGk=\\u0007 text.", parameters: { type: "object" }, execute: async () => 1 };\n',
    );
    const listed = await runCli(["tools", "--no-builtin-tools", "--tools", "./painted.mjs"], { cwd: dir });
    expect(listed.stdout).toBe("t() -> Any: Paints text.\n");
    await writeFile(path.join(dir, "throws-painted.mjs"), 'throw new Error("boom\\u001b[1A\\u001b[2K\\u001bc");\n');
    const failed = await runCli(["run", "--tools", "./throws-painted.mjs", "-"], { cwd: dir, stdin: "print(1)" });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("codecall: Could not load tools module ./throws-painted.mjs: boom\n");
  });

  it("says so, and exits 1, when a tools module's top-level await waits on nothing (Node ended such a process with 13 and no word)", async () => {
    await writeFile(path.join(dir, "stuck.mjs"), "await new Promise(() => {});\n");
    const result = await runCli(["run", "--tools", "./stuck.mjs", "-"], { cwd: dir, stdin: "print(1)", deadlineMs: 60_000 });
    expect(result.killedAtDeadline).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("codecall: stopped before finishing: nothing was left to wait for");
  });

  it("refuses a tools module whose tool a script could not import, naming it and the rule, and exits", async () => {
    // Before the fix the run opened its socket server, then failed, and the CLI never exited.
    const modules: Array<[file: string, definition: string, message: string]> = [
      [
        "dashed.mjs",
        "name: 'get-issue', parameters: { type: 'object' }",
        'Tool name "get-issue" is refused: it is not an ASCII Python identifier. The rule: a tool name must be',
      ],
      ["remote.mjs", "name: 'lookup', parameters: { $ref: 'https://example.com/s.json' }", "Tool lookup: its parameters schema is refused"],
    ];
    for (const [file, definition, message] of modules) {
      await writeFile(path.join(dir, file), `export default [{ ${definition}, description: '', execute: () => 1 }];\n`);
      const result = await runCli(["run", "--tools", `./${file}`, "-"], { cwd: dir, stdin: "print(1)" });
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr).toContain(message);
    }
  }, 60_000);

  it("restricts tools with --allow-tools and drops them with --no-builtin-tools", async () => {
    const restricted = await runCli(["run", "--allow-tools", "read_file", "--json", "-"], {
      stdin:
        "from codecall import call_tool, ToolError\ntry:\n    call_tool('terminal', command='id')\nexcept ToolError as e:\n    print(e.message)\n",
    });
    expect((JSON.parse(restricted.stdout) as { output: string }).output).toBe("Tool 'terminal' is not available in this run. Available: read_file\n");
    const none = await runCli(["run", "--no-builtin-tools", "-"], {
      stdin: "try:\n    from codecall import terminal\nexcept ImportError:\n    print('no terminal')\n",
    });
    expect(none.stdout).toBe("no terminal\n");
  });

  it("takes a list of transports and uses the first that works", async () => {
    const script = { stdin: "from codecall import terminal\nprint(terminal('echo ok')['output'].strip())\n" };
    for (const [list, used] of [
      ["stream,file", "stream"],
      ["file, stream", "file"],
    ] as const) {
      const json = JSON.parse((await runCli(["run", "--json", "--transport", list, "-"], script)).stdout) as Record<string, unknown>;
      expect(json, list).toMatchObject({ status: "success", output: "ok\n", transport: used });
    }
  });

  it("reports each tool call with --verbose", async () => {
    const result = await runCli(["run", "--verbose", "-"], { stdin: "from codecall import terminal\nterminal('true')\n" });
    expect(result.stderr).toMatch(/codecall: → terminal \{"command":"true"/);
    expect(result.stderr).toMatch(/codecall: ← terminal ok \(\d+\.\d\ds\)/);
  });

  it("keeps --verbose lines short whatever the arguments and errors hold", async () => {
    const result = await runCli(["run", "--verbose", "-"], {
      stdin: `from codecall import read_file, ToolError
try:
    read_file("/codecall-missing/" + "x" * 100_000)
except ToolError:
    print("refused")
`,
    });
    expect(result).toMatchObject({ code: 0, stdout: "refused\n" });
    const lines = result.stderr.split("\n").filter((line) => /^codecall: [→←]/.test(line));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(300);
  });

  it("masks host secrets in --verbose lines (the arguments come from the script)", async () => {
    const secret = "verbose-host-secret-0123456789";
    const result = await runCli(["run", "--verbose", "-"], {
      stdin: `from codecall import terminal\nterminal("echo " + ${JSON.stringify(secret)})\n`,
      env: { ...process.env, CLI_VERBOSE_API_TOKEN: secret },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/codecall: → terminal/);
    expect(result.stderr).not.toContain(secret);
  });

  it("reads options from --config, with flags winning", async () => {
    const config = path.join(dir, "codecall.json");
    await writeFile(config, JSON.stringify({ timeout: 5, maxToolCalls: 0 }));
    const result = await runCli(["run", "--config", config, "--max-tool-calls", "5", "--json", "-"], {
      stdin: "from codecall import terminal\nterminal('true')\nimport time\ntime.sleep(30)\n",
    });
    const json = JSON.parse(result.stdout) as { status: string; toolCallsMade: number };
    expect(json).toMatchObject({ status: "timeout", toolCallsMade: 1 });
    expect(result.code).toBe(124);
  });

  it("keeps host secrets from the script", async () => {
    const result = await runCli(["run", "-"], {
      stdin: "import os\nprint('OPENAI_API_KEY' in os.environ, 'MY_KEY_OK' in os.environ)\n",
      env: { ...process.env, OPENAI_API_KEY: "sk-cli-test-0000000000000000", MY_KEY_OK: "1" },
    });
    expect(result.stdout).toBe("False False\n");
    const passed = await runCli(["run", "--env-passthrough", "MY_KEY_OK", "-"], {
      stdin: "import os\nprint(os.environ.get('MY_KEY_OK'))\n",
      env: { ...process.env, MY_KEY_OK: "1" },
    });
    expect(passed.stdout).toBe("1\n");
  });
});
