/**
 * No early failure of executeCode leaves a server, a process or a timer behind: a Node process
 * whose run failed early exits by itself. Each case runs in a child `node` against the built
 * packages; a child still alive after a generous bound is killed and the case fails.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("./fixtures/early-failure.mjs", import.meta.url));
/** Far beyond what any case needs (well under a second); only a hang reaches it. */
const BOUND_MS = 60_000;

interface ChildOutcome {
  exitedByItself: boolean;
  code: number | null;
  outcome: Record<string, unknown> | undefined;
  stderr: string;
}

function runCase(name: string): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FIXTURE, name], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed = false;
    const bound = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, BOUND_MS);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => {
      clearTimeout(bound);
      const line = stdout.trim().split("\n").at(-1);
      resolve({ exitedByItself: !killed, code, outcome: line ? (JSON.parse(line) as Record<string, unknown>) : undefined, stderr });
    });
  });
}

describe("an early failure of executeCode leaves nothing that keeps the process alive", () => {
  it.each<[string, Record<string, unknown>]>([
    ["bad tool name", { thrown: "INVALID_TOOL", message: expect.stringContaining('Tool name "get-issue" is refused') }],
    ["bad tool name in createCodeTool", { thrown: "INVALID_TOOL", message: expect.stringContaining('Tool name "class" is refused') }],
    ["bad tool schema", { thrown: "INVALID_TOOL", message: expect.stringContaining("remote schemas are not fetched") }],
    ["bad module name", { thrown: "INVALID_OPTIONS" }],
    ["a client that cannot be generated", { status: "error", error: expect.stringContaining("no python client") }],
    ["failing tempDir", { status: "error", error: expect.stringContaining("tempDir failed on purpose") }],
    ["failing writeFile", { status: "error", error: expect.stringContaining("writeFile failed on purpose") }],
    ["failing spawn", { status: "error", error: expect.stringContaining("spawn failed on purpose") }],
    ["aborted before start", { status: "interrupted" }],
  ])(
    "%s",
    async (name, expected) => {
      const child = await runCase(name);
      expect(child.exitedByItself, `the child was still alive after ${BOUND_MS} ms; stderr: ${child.stderr}`).toBe(true);
      expect(child.code).toBe(0);
      expect(child.outcome).toMatchObject(expected);
    },
    BOUND_MS + 10_000,
  );
});
