// `codecall repl` end to end on the local backend, its cells piped in: state that survives from
// cell to cell, multi-line cells, :reset, errors that do not end the session, tool calls, JSON
// results, and usage errors.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-repl-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const lines = (...cells: string[]) => `${cells.join("\n")}\n`;

describe("codecall repl with piped input", () => {
  it("runs each cell in one session: imports, variables and functions survive; :reset starts afresh", async () => {
    const stdin = lines(
      "import json",
      "data = {'n': 41}",
      "def bump(d):",
      "    d['n'] += 1",
      "    return d",
      "",
      "print(json.dumps(bump(data)))",
      "items = [",
      "  1,",
      "  2]",
      "print(sum(items), data['n'])",
      ":reset",
      "print('data' in globals())",
    );
    const result = await runCli(["repl", "--no-builtin-tools"], { cwd: dir, stdin });
    expect(result.stdout).toBe('{"n": 42}\n3 42\nFalse\n');
    expect(result.stderr).toBe("codecall: the session was reset: the next cell starts fresh\n");
    expect(result.code).toBe(0);
  });

  it("a failing cell says how it ended on stderr, and the session goes on with its state", async () => {
    const stdin = lines("x = 5", "1/0", "print(x * 2)", "import not_a_module_here", "print('still', x)");
    const result = await runCli(["repl", "--no-builtin-tools"], { cwd: dir, stdin });
    expect(result.stdout).toBe("10\nstill 5\n");
    expect(result.stderr).toContain("ZeroDivisionError: division by zero");
    expect(result.stderr).toContain("codecall: [cell 2] error — Script exited with code 1: ZeroDivisionError: division by zero\n");
    expect(result.stderr).toContain("codecall: [cell 4] error");
    expect(result.stderr).toContain("ModuleNotFoundError");
    expect(result.code).toBe(0);
  });

  it("cells call the host's tools; the end of input runs the cell still open; :quit ignores the rest", async () => {
    await writeFile(path.join(dir, "notes.txt"), "remembered\n");
    const stdin = lines(
      "from codecall import read_file",
      "file = read_file('notes.txt')",
      "for line in file['content'].splitlines():",
      "    print(line.split('|')[1])",
    );
    const result = await runCli(["repl", "--allow-tools", "read_file"], { cwd: dir, stdin });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("remembered\n");
    const quit = await runCli(["repl", "--no-builtin-tools"], { cwd: dir, stdin: lines("print('before')", ":quit", "print('after')") });
    expect(quit).toMatchObject({ code: 0, stdout: "before\n" });
  });

  it("--json prints each cell's result as one JSON line, with its cell number and state", async () => {
    const result = await runCli(["repl", "--no-builtin-tools", "--json"], { cwd: dir, stdin: lines("v = 1", "print(v + 1)") });
    const results = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(results).toMatchObject([
      { status: "success", cell: 1, state: "fresh", output: "" },
      { status: "success", cell: 2, state: "kept", output: "2\n" },
    ]);
  });

  it("--timeout applies per cell: a cell that yields to the interrupt times out and the state is kept", async () => {
    // The limit leaves a short cell room on a loaded machine (the kernel's start is not part of
    // it); the sleeping cell outlasts it whatever the load.
    const stdin = lines("kept = 'yes'", "import time", "time.sleep(600)", "print(kept)");
    const result = await runCli(["repl", "--no-builtin-tools", "--timeout", "10"], { cwd: dir, stdin });
    expect(result.stdout, result.stderr).toBe("yes\n");
    expect(result.stderr).toMatch(/codecall: \[cell 3\] timeout/);
    expect(result.stderr).not.toContain("state was lost");
  });

  it("unknown :commands and stray arguments are explained", async () => {
    const result = await runCli(["repl", "--no-builtin-tools"], { cwd: dir, stdin: lines(":frobnicate") });
    expect(result.stderr).toBe("codecall: unknown command :frobnicate (:help lists them)\n");
    const usage = await runCli(["repl", "script.py"], { cwd: dir });
    expect(usage).toMatchObject({ code: 2, stderr: "codecall: codecall repl takes no arguments, got script.py\n" });
  });
});
