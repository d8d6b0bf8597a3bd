/**
 * `describeSessions()`: `createCodeSession` end to end for a backend × transport pair — one real
 * Python kernel per session, real tools. State survives between cells; a reset, a timeout, an
 * abort, a kernel killed from outside and a cell that ignores the interrupt each leave the state
 * as the result says; tool calls and output are per cell.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createCodeSession,
  defineTool,
  type CodeSession,
  type CodeSessionOptions,
  type Environment,
  type RunEvent,
  type ToolDefinition,
  type Transport,
} from "@codecall/core";
import { processGoneCommand } from "./describe-environment.js";
import { describeIntegration } from "./integration.js";
import refusedCallsGuest from "./guest/refused_calls_guest.py?raw";

export interface SessionsSuiteOptions {
  /** Suite title, e.g. "local + uds". */
  name: string;
  /** Makes the environment for the suite; its default env must include `env` (planted secrets). */
  createEnvironment: (options: { env: Readonly<Record<string, string>> }) => Promise<Environment> | Environment;
  /** The transport(s) the sessions use. */
  transport: () => Transport | readonly Transport[];
  unavailableReason?: string;
  /** Per-test timeout in ms (default 60 s). */
  testTimeoutMs?: number;
  /** How many sessions run at once in the concurrency case (default 20). */
  concurrentSessions?: number;
}

const PLANTED_SECRET = { OPENAI_API_KEY: "sk-codecall-planted-session-key-0123456789" };

export function describeSessions(options: SessionsSuiteOptions): void {
  describeIntegration(`code sessions: ${options.name}`, options.unavailableReason, () => {
    const timeout = options.testTimeoutMs ?? 60_000;
    let environment: Environment;
    const open: CodeSession[] = [];
    let abortOnCall: AbortController | undefined;

    const echoTool = defineTool({
      name: "echo",
      description: "Returns its text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      execute: ({ text }: { text: string }) => ({ text }),
    });
    const abortTool = defineTool({
      name: "abort_me",
      description: "Aborts the test's controller: the cell is then surely running.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      execute: () => {
        abortOnCall?.abort("stopped by the test");
        return "ok";
      },
    });
    const tools: ToolDefinition[] = [echoTool, abortTool];

    const session = (extra: Partial<CodeSessionOptions> = {}): CodeSession => {
      const created = createCodeSession({ environment, transport: options.transport(), tools, ...extra });
      open.push(created);
      return created;
    };

    beforeAll(async () => {
      environment = await options.createEnvironment({ env: PLANTED_SECRET });
    }, timeout * 2);

    afterAll(async () => {
      await Promise.all(open.map((each) => each.close()));
      await environment?.close();
    }, timeout);

    it(
      "keeps imports, variables, functions, open files and threads from one cell to the next",
      async () => {
        const kernel = session();
        const first = await kernel.run(`
import json, threading
counter = 41
def double(n):
    return 2 * n
log = open("/dev/null", "w")
stop = threading.Event()
worker = threading.Thread(target=stop.wait, daemon=True)
worker.start()
print("set")
`);
        expect(first).toMatchObject({ status: "success", output: "set\n", cell: 1, state: "fresh" });
        const second = await kernel.run("counter += 1\nprint(json.dumps({'n': double(counter)}), log.closed, worker.is_alive())");
        expect(second).toMatchObject({ status: "success", output: '{"n": 84} False True\n', cell: 2, state: "kept", stderr: "" });
        const third = await kernel.run("stop.set(); worker.join(); print(counter, worker.is_alive())");
        expect(third).toMatchObject({ output: "42 False\n", cell: 3, state: "kept" });
      },
      timeout,
    );

    it(
      "runs each cell with its own tool-call budget; calls from threads of concurrent cells work",
      async () => {
        const kernel = session({ limits: { maxToolCalls: 3 } });
        const code = `
import threading, codecall
results = {}
def work(i):
    try:
        results[i] = codecall.echo(text=str(i))["text"]
    except codecall.ToolError as error:
        results[i] = "refused"
threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(results.values()))
`;
        const first = await kernel.run(code);
        expect(first.output).toMatch(/^\['\d', '\d', '\d', 'refused'\]\n$/);
        expect(first.toolCallsMade).toBe(3);
        const second = await kernel.run(code);
        expect(second.toolCallsMade).toBe(3);
        expect(second.state).toBe("kept");
      },
      timeout,
    );

    it(
      "gives each cell its own budget of refused requests: a cell that spends it leaves the next one working",
      async () => {
        const kernel = session({ limits: { maxFrameBytes: 64 * 1024 } });
        const first = await kernel.run(refusedCallsGuest);
        expect(first).toMatchObject({ status: "success", toolCallsMade: 0 });
        expect(first.output).toMatch(
          /^cut off after 19\n\n⚠ The host stopped reading this cell's tool calls after 1048576 bytes of refused requests/,
        );
        const second = await kernel.run('print(echo("fine")["text"], sent)');
        expect(second).toMatchObject({ status: "success", output: "fine 19\n", toolCallsMade: 1, state: "kept" });
      },
      timeout,
    );

    it(
      "refuses tool calls from a thread an ended cell left running, and says why",
      async () => {
        const kernel = session();
        await kernel.run(`
import threading, codecall
go = threading.Event()
outcome = []
def late():
    go.wait()
    try:
        outcome.append(codecall.echo(text="late"))
    except codecall.ToolError as error:
        outcome.append(str(error))
leftover = threading.Thread(target=late)
leftover.start()
`);
        const result = await kernel.run("go.set(); leftover.join(); print(outcome[0]); print(codecall.echo(text='mine')['text'])");
        expect(result.status).toBe("success");
        expect(result.output).toMatch(
          /^echo: Tool call refused: it came from code of cell 1, which has ended .*only code of the running cell \(2\) may call tools\.\nmine\n$/,
        );
        expect(result.toolCallsMade).toBe(1);
      },
      timeout,
    );

    it(
      "captures and truncates output per cell, whatever a cell prints",
      async () => {
        const kernel = session({ limits: { maxStdoutBytes: 1000 } });
        const flood = await kernel.run("print('x' * 5000)");
        expect(flood).toMatchObject({ status: "success", stdoutTruncated: true, stdoutBytesTotal: 5001 });
        expect(flood.output).toContain("OUTPUT TRUNCATED");
        // The whole cell's output is saved where the notice says, as in a one-shot run.
        const spillPath = flood.stdoutSpillPath!;
        expect(flood.output).toContain(`[the whole output is in ${spillPath}: read it in parts]`);
        expect(new TextDecoder().decode(await environment.readFile(spillPath))).toBe(`${"x".repeat(5000)}\n`);
        const paged = await kernel.run(`print(len(open(${JSON.stringify(spillPath)}).read()))`);
        expect(paged).toMatchObject({ status: "success", output: "5001\n", cell: 2 });
        await environment.remove(spillPath);
        // Text shaped like the kernel's markers, without the session's nonce, is only output.
        const lookalike = '{"cell": 2, "status": "ok", "exitCode": 0, "stderr": true}';
        const small = await kernel.run(`import sys\nprint(${JSON.stringify(lookalike)})\nprint("err", file=sys.stderr)\nprint("tail", end="")`);
        expect(small).toMatchObject({ status: "success", output: `${lookalike}\ntail`, stdoutTruncated: false, stderr: "err\n", cell: 3 });
        const failing = await kernel.run("def f():\n    raise ValueError('boom')\nf()");
        expect(failing).toMatchObject({ status: "error", exitCode: 1, state: "kept" });
        expect(failing.stderr).toMatch(/File "<cell 4>", line 3, in <module>\n {4}f\(\)\n[\s\S]*ValueError: boom\n$/);
        expect(failing.stderr).not.toContain("script.py");
        const after = await kernel.run("print('clean')");
        expect(after).toMatchObject({ status: "success", output: "clean\n", stderr: "" });
      },
      timeout,
    );

    it(
      "gives the kernel the scrubbed env, the cwd asked for and no stdin; masks secrets in the output",
      async () => {
        const kernel = session({ env: { passthrough: ["OPENAI_API_KEY"] } });
        const result = await kernel.run(`
import os, sys
print(os.environ.get("OPENAI_API_KEY"))
print(repr(sys.stdin.read()))
`);
        expect(result.status).toBe("success");
        expect(result.output).not.toContain(PLANTED_SECRET.OPENAI_API_KEY);
        expect(result.output).not.toMatch(/^None\n/);
        expect(result.output).toMatch(/\n''\n$/);
        const scratch = await environment.tempDir();
        try {
          const hidden = await session({ cwd: scratch }).run("import os\nprint(os.environ.get('OPENAI_API_KEY'), os.getcwd())");
          expect(hidden.output).toBe(`None ${(await environment.execute("pwd -P", { cwd: scratch })).stdout}`);
        } finally {
          await environment.remove(scratch);
        }
      },
      timeout,
    );

    it(
      "reports each cell as a run of its own to the listeners: started, live output, tool calls, finished",
      async () => {
        const events: RunEvent[] = [];
        const chunks: string[] = [];
        const decoder = new TextDecoder();
        const kernel = session({ onEvent: (event) => events.push(event), onStdout: (chunk) => chunks.push(decoder.decode(chunk)) });
        await kernel.run("print('first')");
        const second = await kernel.run("import codecall\nprint(codecall.echo(text='second')['text'])");
        const runIds = [...new Set(events.map((event) => event.runId))];
        expect(runIds).toHaveLength(2);
        expect(runIds.every((runId) => runId.startsWith(kernel.id))).toBe(true);
        const ofSecond = events.filter((event) => event.runId === runIds[1]).map((event) => event.type);
        expect(ofSecond[0]).toBe("started");
        expect(ofSecond.at(-1)).toBe("finished");
        expect(ofSecond).toEqual(expect.arrayContaining(["tool-call-start", "tool-call-end", "stdout"]));
        expect(events.at(-1)).toMatchObject({ type: "finished", result: { cell: 2, state: "kept", output: "second\n" } });
        expect(second.output).toBe("second\n");
        expect(chunks.join("")).toBe("first\nsecond\n");
      },
      timeout,
    );

    it(
      "reads no more of a cell's output while a live-output consumer holds a chunk, then delivers every byte",
      async () => {
        const LINES = 8 * 1024;
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        let chunks = 0;
        let bytes = 0;
        const kernel = session({
          onStdout: (chunk) => {
            chunks += 1;
            bytes += chunk.length;
            return chunks === 1 ? held : undefined;
          },
        });
        const running = kernel.run(`import sys\nline = "x" * 1023 + "\\n"\nfor _ in range(${LINES}):\n    sys.stdout.write(line)\nprint("done")`);
        await expect.poll(() => chunks, { timeout: timeout / 2 }).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(chunks).toBe(1);
        release();
        const result = await running;
        expect(result.status).toBe("success");
        expect(bytes).toBe(LINES * 1024 + "done\n".length);
        // The kernel is not stuck behind the held stream: the next cell runs and prints.
        expect((await kernel.run("print('next')")).output).toBe("next\n");
      },
      timeout,
    );

    it(
      "interrupts a cell that times out and keeps the state, though its live-output consumer never takes a chunk",
      async () => {
        let holding = false;
        const kernel = session({
          limits: { timeoutMs: 3_000, killGraceMs: 20_000 },
          onStdout: () => (holding ? new Promise<void>(() => {}) : undefined),
        });
        await kernel.run("kept = 41");
        holding = true;
        const held = await kernel.run(
          `import sys, time\nline = "x" * 1023 + "\\n"\nfor _ in range(8 * 1024):\n    sys.stdout.write(line)\ntime.sleep(60)`,
        );
        holding = false;
        expect(held).toMatchObject({ status: "timeout", state: "kept" });
        expect((await kernel.run("print(kept + 1)")).output).toBe("42\n");
      },
      timeout,
    );

    it(
      "reset() starts a fresh kernel; cell numbers go on",
      async () => {
        const kernel = session();
        await kernel.run("value = 'old'");
        await kernel.reset();
        const result = await kernel.run("print(globals().get('value'))");
        expect(result).toMatchObject({ status: "success", output: "None\n", cell: 2, state: "fresh" });
        expect(result.stateNote).toBeUndefined();
      },
      timeout,
    );

    it(
      "interrupts a cell that times out and keeps the state when the kernel answers",
      async () => {
        // Long enough for a short cell on a loaded machine (the kernel's start is not part of a cell's time).
        const kernel = session({ limits: { timeoutMs: 5_000, killGraceMs: 20_000 } });
        await kernel.run("kept = 'yes'");
        const stuck = await kernel.run("import time\nprint('waiting', flush=True)\ntime.sleep(120)");
        expect(stuck).toMatchObject({ status: "timeout", state: "kept", cell: 2 });
        expect(stuck.output).toMatch(/^waiting\n[\s\S]*Cell timed out after 5s and was interrupted\.$/);
        const after = await kernel.run("print(kept)");
        expect(after).toMatchObject({ status: "success", output: "yes\n", state: "kept" });
      },
      timeout,
    );

    it(
      "kills and restarts a kernel that ignores the interrupt, and says the state was lost",
      async () => {
        const kernel = session({ limits: { timeoutMs: 5_000, killGraceMs: 1_000 } });
        await kernel.run("kept = 'yes'");
        const stuck = await kernel.run("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass");
        expect(stuck).toMatchObject({ status: "timeout", state: "lost" });
        expect(stuck.stateNote).toMatch(/did not stop within 1s of being interrupted, so the session's kernel was killed/);
        expect(stuck.output).toContain(stuck.stateNote);
        const after = await kernel.run("print(globals().get('kept'))");
        expect(after).toMatchObject({ status: "success", output: "None\n", state: "fresh" });
      },
      timeout,
    );

    it(
      "interrupts a cell when its signal aborts, cancelling its tool calls, and keeps the state",
      async () => {
        const kernel = session({ limits: { killGraceMs: 20_000 } });
        await kernel.run("kept = 'yes'");
        abortOnCall = new AbortController();
        const result = await kernel.run("import codecall, time\ncodecall.abort_me()\ntime.sleep(120)", { signal: abortOnCall.signal });
        expect(result).toMatchObject({ status: "interrupted", state: "kept", error: "Script was interrupted: stopped by the test" });
        const after = await kernel.run("print(kept)");
        expect(after).toMatchObject({ output: "yes\n", state: "kept" });
      },
      timeout,
    );

    it(
      "gives every cell the kernel's stdout and stderr back, whatever the cell before did to them or to the modules",
      async () => {
        const kernel = session({ limits: { timeoutMs: 20_000 } });
        await kernel.run("kept = 'yes'");
        const breakers = [
          "import sys\nsys.stdout = None",
          "import sys\nsys.stdout.close()",
          "import os\nos.close(1)",
          "import os, sys\nos.dup2(os.open(os.devnull, os.O_WRONLY), 1)\nos.close(2)\nsys.stderr = None",
          // Modules are shared with the kernel: its own end of a cell must not use what a cell patched.
          "import json, os\njson.dumps = json.loads = lambda *args, **kwargs: 'patched'\nos.write = os.kill = None",
        ];
        for (const breaker of breakers) {
          // Each ends as a cell (the kernel's end marker still gets out), then the next prints.
          expect(await kernel.run(breaker)).toMatchObject({ status: "success", state: "kept" });
          const after = await kernel.run("import sys\nprint(kept)\nraise SystemExit('and on stderr')");
          expect(after).toMatchObject({ status: "error", state: "kept", output: "yes\n--- stderr ---\nand on stderr\n" });
        }
      },
      timeout,
    );

    it(
      "ends the kernel of a cell that closes the kernel's channel to the host, saying so in that cell, and starts fresh",
      async () => {
        const kernel = session({ limits: { timeoutMs: 20_000 } });
        await kernel.run("kept = 'yes'");
        // What daemonising code does; the descriptor may then be taken by a file the cell opens.
        const deaf = await kernel.run("import os\nos.closerange(3, 4096)\nreused = open(os.devnull)\nprint('closed')");
        expect(deaf).toMatchObject({ status: "error", state: "lost" });
        expect(deaf.output).toMatch(/^closed\n--- stderr ---\ncodecall: this cell closed the session kernel's channel to the host/);
        expect(deaf.stateNote).toMatch(/the cell closed the session kernel's channel to the host, so the kernel had to end/);
        const after = await kernel.run("print(globals().get('kept'))");
        expect(after).toMatchObject({ status: "success", output: "None\n", state: "fresh" });
        expect(after.stateNote).toBeUndefined();
      },
      timeout,
    );

    it(
      "never runs a cell whose signal was aborted before its turn (waiting behind another, or already aborted)",
      async () => {
        const kernel = session();
        const scratch = await environment.tempDir();
        try {
          await kernel.run("kept = 'yes'");
          const marker = (name: string) => `open(${JSON.stringify(`${scratch}/${name}`)}, "w").close()\nprint('ran')`;
          const first = kernel.run("import time\ntime.sleep(0.5)");
          const waiting = new AbortController();
          const queued = kernel.run(marker("queued"), { signal: waiting.signal });
          waiting.abort();
          await first;
          const already = kernel.run(marker("already"), { signal: AbortSignal.abort() });
          for (const result of [await queued, await already]) {
            expect(result).toMatchObject({ status: "interrupted", state: "kept" });
            expect(result.output).not.toContain("ran");
          }
          const left = await environment.execute(`ls -A ${scratch}`);
          expect(left.stdout).toBe("");
          expect(await kernel.run("print(kept)")).toMatchObject({ status: "success", output: "yes\n", state: "kept" });
        } finally {
          await environment.remove(scratch);
        }
      },
      timeout,
    );

    it(
      "says the state was lost when the kernel was killed from outside, and starts fresh",
      async () => {
        const kernel = session();
        const scratch = await environment.tempDir();
        try {
          const pidFile = `${scratch}/kernel.pid`;
          await kernel.run(`import os\nkept = 'yes'\nopen(${JSON.stringify(pidFile)}, "w").write(str(os.getpid()))`);
          await environment.execute(`kill -9 $(cat ${pidFile})`);
          expect((await environment.execute(processGoneCommand(pidFile))).stdout.trim()).toBe("gone");
          const after = await kernel.run("print(globals().get('kept'))");
          expect(after.state).toBe("lost");
          expect(after.stateNote).toMatch(/kernel (had ended since the last cell|ended during the cell)/);
          const next = await kernel.run("print(globals().get('kept'))");
          expect(next).toMatchObject({ status: "success", output: "None\n", state: after.status === "success" ? "kept" : "fresh" });
        } finally {
          await environment.remove(scratch);
        }
      },
      timeout,
    );

    it(
      `runs ${options.concurrentSessions ?? 20} sessions at once, each with its own state`,
      async () => {
        const count = options.concurrentSessions ?? 20;
        const kernels = Array.from({ length: count }, () => session());
        await Promise.all(kernels.map((kernel, index) => kernel.run(`mine = ${index}`)));
        const results = await Promise.all(kernels.map((kernel) => kernel.run("import codecall\nprint(codecall.echo(text=str(mine))['text'])")));
        expect(results.map((result) => result.output)).toEqual(kernels.map((_, index) => `${index}\n`));
        expect(results.every((result) => result.state === "kept")).toBe(true);
        await Promise.all(kernels.map((kernel) => kernel.close()));
      },
      timeout * 2,
    );

    it(
      "close() ends the kernel's processes and refuses further cells",
      async () => {
        const kernel = session();
        const scratch = await environment.tempDir();
        try {
          const pidFile = `${scratch}/child.pid`;
          await kernel.run(
            `import os, subprocess\nchild = subprocess.Popen(["sleep", "300"])\nopen(${JSON.stringify(pidFile)}, "w").write(str(child.pid))`,
          );
          await kernel.close();
          expect((await environment.execute(processGoneCommand(pidFile))).stdout.trim()).toBe("gone");
          await expect(kernel.run("print(1)")).rejects.toMatchObject({ code: "SESSION_CLOSED" });
        } finally {
          await environment.remove(scratch);
        }
      },
      timeout,
    );
  });
}
