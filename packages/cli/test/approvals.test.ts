/**
 * Approvals in `codecall run`, through the built CLI: asked on a real pseudo-terminal (util-linux
 * `script` runs the CLI on one and we type the answers), denied when stdin is not a terminal or
 * carried the script, approved without asking with --approve-all.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, runCli } from "./support.js";

/** Calls terminal three times, printing the answer or the ToolError, then a last line. */
const THREE_CALLS = `from codecall import terminal, ToolError
for i in range(3):
    try:
        print(terminal(f"echo call-{i}")["output"].strip())
    except ToolError as error:
        print("denied:", error.message)
print("script went on")
`;

const hasScript = spawnSync("script", ["--version"]).status === 0;
const required = process.env.CODECALL_REQUIRE_INTEGRATION === "1";

interface TerminalRun {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr of the CLI, and the typed answers echoed), "\r\n" as "\n". */
  screen: string;
}

/**
 * Runs `codecall ARGS` on a pseudo-terminal. Each time the screen asks one more time, the next of
 * `answers` is typed (a function gets the screen and may also send control characters).
 */
function runInTerminal(args: string[], cwd: string, answers: (string | ((type: (text: string) => void) => void))[]): Promise<TerminalRun> {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  let answered = 0;
  const type = (text: string) => child.stdin.write(text);
  const deadline = setTimeout(() => child.kill("SIGKILL"), 90_000);
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
    // Questions, and the request to answer again after a word it does not know.
    const asked = screen.match(/for this run\)?: /g)?.length ?? 0;
    while (answered < asked && answered < answers.length) {
      const answer = answers[answered++]!;
      if (typeof answer === "string") type(`${answer}\n`);
      else answer(type);
    }
  });
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(deadline);
      resolve({ code, screen: screen.replaceAll("\r\n", "\n") });
    });
  });
}

describe("codecall run: approvals", () => {
  let dir: string;
  let script: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-approvals-"));
    script = path.join(dir, "three.py");
    await writeFile(script, THREE_CALLS);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("denies calls that need approval when stdin is not a terminal, says why once, and the script goes on", async () => {
    const result = await runCli(["run", script, "--require-approval", "terminal"]);
    expect(result.code).toBe(0);
    const denial = "denied: Tool call denied: terminal needs approval, and nobody can approve calls in this run";
    expect(result.stdout).toBe(`${denial}\n${denial}\n${denial}\nscript went on\n`);
    expect(result.stderr).toBe("codecall: terminal needs approval; denied because stdin is not a terminal (--approve-all approves every call)\n");
  });

  it("approves every call without asking with --approve-all (also from a config file)", async () => {
    const result = await runCli(["run", script, "--require-approval", "terminal", "--approve-all", "-v"]);
    expect(result.stdout).toBe("call-0\ncall-1\ncall-2\nscript went on\n");
    expect(result.stderr).toMatch(/codecall: approval of terminal: approved \(handler, after \d+\.\d\ds\)/);
    const config = path.join(dir, "config.json");
    await writeFile(config, JSON.stringify({ requireApproval: ["terminal"], approveAll: true }));
    const fromFile = await runCli(["run", script, "--config", config]);
    expect(fromFile.stdout).toBe("call-0\ncall-1\ncall-2\nscript went on\n");
  });

  it("cannot ask when the script itself came on stdin, and says so", async () => {
    const result = await runCli(["run", "-", "--require-approval", "terminal"], { stdin: THREE_CALLS });
    expect(result.stdout).toContain("denied: Tool call denied: terminal needs approval");
    expect(result.stderr).toContain("denied because the script was read from stdin, so no answer can be read there");
  });

  it("refuses --require-approval of a tool that does not exist, and a bad --approval-timeout", async () => {
    const unknown = await runCli(["run", script, "--require-approval", "terminal,nosuch"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^codecall: --require-approval names unknown tools: nosuch\. Tools: patch, read_file/);
    const timeout = await runCli(["run", script, "--approval-timeout", "soon"]);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain("--approval-timeout wants a number of seconds");
  });

  describe.skipIf(!hasScript && !required)(`on a terminal${hasScript ? "" : " (skipped: the `script` command of util-linux is missing)"}`, () => {
    it("asks for each call: yes runs it, no denies it with the reason, always runs the rest without asking", async () => {
      const loop = path.join(dir, "loop.py");
      await writeFile(loop, `${THREE_CALLS}\nfor i in range(5):\n    terminal(f"echo again-{i}")\nprint("looped")\n`);
      const run = await runInTerminal(["run", loop, "--require-approval", "terminal"], dir, ["y", "n", "a"]);
      expect(run.code).toBe(0);
      const questions = run.screen.match(/codecall: approve terminal\(\{"command":"echo [^"]+"/g);
      expect(questions).toEqual([
        'codecall: approve terminal({"command":"echo call-0"',
        'codecall: approve terminal({"command":"echo call-1"',
        'codecall: approve terminal({"command":"echo call-2"',
      ]);
      expect(run.screen).toContain("call-0\n");
      expect(run.screen).toContain("denied: Tool call denied: the user denied this call\n");
      expect(run.screen).toContain("call-2\nscript went on\nlooped\n");
    }, 120_000);

    it("asks again after a word it does not know", async () => {
      const run = await runInTerminal(["run", script, "--require-approval", "terminal"], dir, ["perhaps", "y", "y", "y"]);
      expect(run.screen).toContain("Please answer y (yes), n (no) or a (always for this run): ");
      expect(run.screen).toContain("call-0\n");
      expect(run.code).toBe(0);
    }, 120_000);

    it("withdraws a question nobody answers in time and denies the call", async () => {
      const one = path.join(dir, "one.py");
      await writeFile(
        one,
        'from codecall import terminal, ToolError\ntry:\n    terminal("echo x")\nexcept ToolError as error:\n    print("denied:", error.message)\n',
      );
      const run = await runInTerminal(["run", one, "--require-approval", "terminal", "--approval-timeout", "1"], dir, [() => {}]);
      expect(run.screen).toContain("(withdrawn: no answer within 1 s)\n");
      expect(run.screen).toContain("denied: Tool call denied: no answer to the approval request within 1 s\n");
      expect(run.code).toBe(0);
    }, 120_000);

    it("holds the script's output while a question is on screen, so it cannot overwrite the question", async () => {
      // Another thread of the script keeps writing a carriage return and text of its own: written
      // after the question, it would return to the start of the line being answered and cover it.
      const spoof = path.join(dir, "spoof.py");
      await writeFile(
        spoof,
        [
          "import sys, threading, time",
          "from codecall import terminal",
          "stop = threading.Event()",
          "def cover():",
          "    while not stop.is_set():",
          '        sys.stdout.write("\\rSPOOF harmless()? ")',
          "        sys.stdout.flush()",
          "        time.sleep(0.02)",
          "threading.Thread(target=cover, daemon=True).start()",
          "time.sleep(0.2)",
          'print(terminal("echo approved-call")["output"].strip())',
          "stop.set()",
          'print("done")',
          "",
        ].join("\n"),
      );
      // The answer comes after the cover thread has had time to write several times.
      const run = await runInTerminal(["run", spoof, "--require-approval", "terminal"], dir, [(type) => setTimeout(() => type("y\n"), 400)]);
      expect(run.code).toBe(0);
      // Nothing between the question and the answer typed to it.
      expect(run.screen).toMatch(
        /codecall: approve terminal\(\{"command":"echo approved-call"[^}]*\}\)\? \[y\]es \/ \[n\]o \/ \[a\]lways for this run: y\n/,
      );
      // What the script wrote meanwhile comes after the answer, not lost.
      const answered = run.screen.indexOf("for this run: y\n");
      expect(run.screen.slice(answered)).toContain("SPOOF harmless()? ");
      expect(run.screen).toContain("approved-call\n");
      expect(run.screen).toContain("done\n");
    }, 120_000);

    it("stops the run on Ctrl-C while a question is on screen", async () => {
      const run = await runInTerminal(["run", script, "--require-approval", "terminal"], dir, [(type) => type("\x03")]);
      expect(run.code).toBe(130);
      expect(run.screen).toContain("Ctrl-C: interrupting the script");
      expect(run.screen).toContain("(withdrawn: the run ended)");
      expect(run.screen).toMatch(/codecall: interrupted — Script was interrupted: interrupted by Ctrl-C/);
    }, 120_000);
  });
});
