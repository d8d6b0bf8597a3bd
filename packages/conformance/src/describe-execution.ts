/**
 * `describeExecution()`: end-to-end `executeCode` cases for a backend × transport pair — real
 * Python scripts calling real tools. Every backend runs it with every transport it supports.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  defineTool,
  executeCode,
  type Environment,
  type ExecuteCodeOptions,
  type ExecuteCodeResult,
  type ToolDefinition,
  type Transport,
} from "@codecall/core";
import { processGoneCommand } from "./describe-environment.js";
import { sampleHostMemory } from "./host-memory.js";
import { describeIntegration } from "./integration.js";
import { leftoverProcessesCommand } from "./run-leftovers.js";
import refusedCallsGuest from "./guest/refused_calls_guest.py?raw";

export interface ExecutionSuiteOptions {
  /** Suite title, e.g. "local + uds". */
  name: string;
  /**
   * Makes the environment for the suite. Its default env must include `env` (the suite plants
   * fake secrets there to prove they never reach the script).
   */
  createEnvironment: (options: { env: Readonly<Record<string, string>> }) => Promise<Environment> | Environment;
  /**
   * The built-in tools (`builtinTools` from @codecall/tools): the suite drives `terminal`,
   * `write_file` and `read_file` to prove tools act where the script runs.
   */
  builtinTools: readonly ToolDefinition[];
  /** The transport(s) to run with; a list means "first that supports the environment". */
  transport: () => Transport | readonly Transport[];
  unavailableReason?: string;
  /** Per-test timeout in ms (default 60 s). */
  testTimeoutMs?: number;
  /** The transport id the runs must report (checks that `auto` picked what you expect). */
  expectTransportId?: string;
  /**
   * The environment holds each command's whole tree, so scripts run without codecall's launcher
   * (`SpawnOptions.whenTreeHeld`: an `ExecEnvironment` with its agent up). Default: under the launcher.
   */
  treeHeld?: boolean;
}

/**
 * Python printing how the script process was started: the Python processes in its session, whether
 * it leads that session, whether the guest's start-up hook named it the script, and whether its
 * parent is codecall's launcher (its source, passed with -c, starts with "# codecall launcher").
 */
const SCRIPT_PROCESS_REPORT = `
import os
def session_of(pid):
    stat = open("/proc/%s/stat" % pid, "rb").read()
    return int(stat[stat.rindex(b")") + 2 :].split()[3])
pythons = 0
for entry in filter(str.isdigit, os.listdir("/proc")):
    try:
        if session_of(entry) == os.getsid(0) and os.path.basename(os.readlink("/proc/%s/exe" % entry)).startswith("python"):
            pythons += 1
    except OSError:
        pass
parent = open("/proc/%d/cmdline" % os.getppid(), "rb").read()
print(pythons, "leads" if os.getsid(0) == os.getpid() else "led",
      "named" if os.environ.get("CODECALL_SCRIPT_PID") == str(os.getpid()) else "unnamed",
      "launched" if b"# codecall launcher" in parent else "direct")
`;

/** Planted in the environment's default env; must never reach a script. */
const PLANTED_SECRETS = {
  OPENAI_API_KEY: "sk-codecall-planted-openai-key-0123456789",
  DATABASE_URL: "postgres://admin:planted-db-password@db.internal:5432/app",
  CODECALL_PASSTHROUGH_TOKEN: "passthrough-allowed-value",
};

export function describeExecution(options: ExecutionSuiteOptions): void {
  describeIntegration(`executeCode end to end: ${options.name}`, options.unavailableReason, () => {
    const timeout = options.testTimeoutMs ?? 60_000;
    let environment: Environment;
    const probe = { inFlight: 0, maxInFlight: 0 };
    const hang = { started: 0, cancelled: 0 };

    const terminalTool = options.builtinTools.find((tool) => tool.name === "terminal");
    if (!terminalTool) throw new Error("describeExecution needs the built-in tools, terminal among them");
    const countingTerminal: ToolDefinition = {
      ...terminalTool,
      async execute(args, context) {
        probe.inFlight += 1;
        probe.maxInFlight = Math.max(probe.maxInFlight, probe.inFlight);
        try {
          return await terminalTool.execute(args, context);
        } finally {
          probe.inFlight -= 1;
        }
      },
    };
    const echoTool = defineTool({
      name: "echo",
      description: "Returns its text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      returns: { type: "object", properties: { text: { type: "string" }, length: { type: "integer" } } },
      execute: ({ text }: { text: string }) => ({ text, length: text.length }),
    });
    const hangTool = defineTool({
      name: "hang",
      description: "Never finishes on its own; ends when cancelled.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      execute: (_args: Record<string, never>, context) =>
        new Promise((_, reject) => {
          hang.started += 1;
          context.signal.addEventListener("abort", () => {
            hang.cancelled += 1;
            reject(new Error("cancelled"));
          });
        }),
    });
    const buildTool = defineTool({
      name: "build",
      description: "Returns a string of `size` x's wrapped in `levels` lists.",
      parameters: { type: "object", properties: { levels: { type: "integer" }, size: { type: "integer" } }, required: ["levels"] },
      execute: ({ levels, size = 0 }: { levels: number; size?: number }) => {
        let value: unknown = "x".repeat(size);
        for (let level = 0; level < levels; level += 1) value = [value];
        return value;
      },
    });
    const failOddlyTool = defineTool({
      name: "fail_oddly",
      description: "Throws something that is hard to describe.",
      parameters: { type: "object", properties: { how: { type: "string" } }, required: ["how"] },
      execute: ({ how }: { how: string }) => {
        if (how === "message-getter") {
          throw Object.defineProperty(new Error(), "message", {
            get() {
              throw new Error("no message for you");
            },
          });
        }
        // A Proxy whose every trap throws: not even `instanceof` works on it.
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a hostile non-Error thrown value is what this tool is for
        throw new Proxy(
          {},
          {
            getPrototypeOf: () => {
              throw new Error("trap");
            },
            get: () => {
              throw new Error("trap");
            },
            ownKeys: () => {
              throw new Error("trap");
            },
          },
        );
      },
    });
    const cutTool = defineTool({
      name: "cut",
      description: "Returns its text cut to `length` UTF-16 units (as a careless tool does), and throws it when `fail` is set.",
      parameters: {
        type: "object",
        properties: { text: { type: "string" }, length: { type: "integer" }, fail: { type: "boolean" } },
        required: ["text", "length"],
      },
      execute: ({ text, length, fail }: { text: string; length: number; fail?: boolean }) => {
        if (fail) throw new Error(text.slice(0, length));
        return { [text.slice(0, length)]: text.slice(0, length) };
      },
    });
    const tools = [
      countingTerminal,
      ...options.builtinTools.filter((tool) => tool.name !== "terminal"),
      echoTool,
      hangTool,
      buildTool,
      failOddlyTool,
      cutTool,
    ];

    const run = (code: string, extra: Partial<ExecuteCodeOptions> = {}): Promise<ExecuteCodeResult> =>
      executeCode({ code, environment, transport: options.transport(), tools, ...extra });

    beforeAll(async () => {
      environment = await options.createEnvironment({ env: PLANTED_SECRETS });
    }, timeout * 2);

    afterAll(async () => {
      await environment?.close();
    }, timeout);

    it(
      "runs a script and returns what it printed",
      async () => {
        const result = await run('from codecall import echo\nprint(echo("hi")["text"], "✓")');
        expect(result).toMatchObject({ status: "success", output: "hi ✓\n", exitCode: 0, toolCallsMade: 1 });
        if (options.expectTransportId) expect(result.transport).toBe(options.expectTransportId);
      },
      timeout,
    );

    it(
      "answers no more requests unread once refused ones have taken the run's budget, and says why",
      async () => {
        // 16 refused frames of the run's limit are the budget: a script that keeps sending invalid
        // frames cannot keep the host busy parsing them until its time limit.
        const result = await run(
          `${refusedCallsGuest}
try:
    echo("fine")
except ToolError as error:
    print("then:", error)
`,
          { limits: { maxFrameBytes: 64 * 1024 } },
        );
        expect(result.status).toBe("success");
        const [cutOff, then, blank, notice] = result.output.split("\n");
        expect(cutOff).toBe("cut off after 19");
        expect(then).toMatch(/^then: echo: Request refused: this run's refused requests already took 1048576 bytes /);
        // The model reads why, whether or not the script printed its errors.
        expect([blank, notice]).toEqual([
          "",
          expect.stringMatching(/^⚠ The host stopped reading this run's tool calls after 1048576 bytes of refused requests/),
        ]);
        expect(result.toolCallsMade).toBe(0);
      },
      timeout,
    );

    it(
      "gives the script text it can print when a tool cuts a string inside an emoji (U+FFFD for the lone half)",
      async () => {
        const result = await run(`
from codecall import ToolError, cut
result = cut("smile 😀!", 7)
print(result)
for key, value in result.items():
    print(key, value, value.encode("utf-8"))
try:
    cut("bad 😀", 5, fail=True)
except ToolError as error:
    print(error)
`);
        expect(result.status).toBe("success");
        expect(result.output).toBe("{'smile \ufffd': 'smile \ufffd'}\nsmile \ufffd smile \ufffd b'smile \\xef\\xbf\\xbd'\ncut: bad \ufffd\n");
      },
      timeout,
    );

    it(
      "serves 10 threads at once, each getting its own answer",
      async () => {
        probe.maxInFlight = 0;
        const result = await run(`
import threading
from codecall import terminal
results = {}
def work(i):
    results[i] = terminal(f"echo START-{i}; sleep 0.3; echo END-{i}")
threads = [threading.Thread(target=work, args=(i,)) for i in range(10)]
for t in threads: t.start()
for t in threads: t.join()
for i in range(10):
    assert results[i]["output"].split() == [f"START-{i}", f"END-{i}"], results[i]
    assert results[i]["exit_code"] == 0
print("ok", len(results))
`);
        expect(result.output).toBe("ok 10\n");
        expect(result.toolCallsMade).toBe(10);
        expect(probe.maxInFlight).toBeGreaterThanOrEqual(5);
      },
      timeout,
    );

    it(
      "runs the async variants concurrently under asyncio.gather",
      async () => {
        const result = await run(`
import asyncio
from codecall import echo_async
async def main():
    return await asyncio.gather(*[echo_async(f"t{i}") for i in range(8)])
print([r["text"] for r in asyncio.run(main())])
`);
        expect(result.output).toBe("['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']\n");
      },
      timeout,
    );

    it(
      "serves tool calls from forked worker processes and from subprocesses",
      async () => {
        const result = await run(`
import multiprocessing, subprocess, sys
from codecall import echo
def work(i):
    return echo(f"worker-{i}")["text"]
echo("parent first")
with multiprocessing.get_context("fork").Pool(3) as pool:
    print(sorted(pool.map(work, range(6))))
child = subprocess.run([sys.executable, "-c", "from codecall import echo; print(echo('from-subprocess')['text'])"], capture_output=True, text=True)
print(child.stdout.strip(), child.returncode)
`);
        expect(result.status).toBe("success");
        expect(result.output).toBe("['worker-0', 'worker-1', 'worker-2', 'worker-3', 'worker-4', 'worker-5']\nfrom-subprocess 0\n");
        expect(result.toolCallsMade).toBe(8);
      },
      timeout,
    );

    it(
      "answers a first tool call made long after the start",
      async () => {
        const result = await run('import time\ntime.sleep(6)\nfrom codecall import echo\nprint(echo("late")["text"])');
        expect(result.output).toBe("late\n");
      },
      timeout,
    );

    it(
      "carries large arguments and results intact",
      async () => {
        const result = await run(`
import hashlib
from codecall import echo
text = "".join(chr(0x41 + (i % 26)) for i in range(3_000_000)) + "é✓"
back = echo(text)
print(back["length"] == len(text), hashlib.sha256(back["text"].encode()).hexdigest() == hashlib.sha256(text.encode()).hexdigest())
`);
        expect(result.output).toBe("True True\n");
      },
      timeout,
    );

    it(
      "lets built-in tools act where the script runs",
      async () => {
        const result = await run(`
import os, socket, tempfile
from codecall import write_file, terminal, read_file
path = os.path.join(tempfile.mkdtemp(), "from-tool.txt")
write_file(path, "written by the tool")
print(open(path).read())
print(terminal("hostname")["output"].strip() == socket.gethostname())
print(read_file(path)["content"].strip().endswith("written by the tool"))
`);
        expect(result.output).toBe("written by the tool\nTrue\nTrue\n");
      },
      timeout,
    );

    it(
      "stops dispatching at the tool-call budget and lets the script go on",
      async () => {
        const result = await run(
          `
from codecall import echo, ToolError
for i in range(5):
    try:
        print("ok", echo(str(i))["text"])
    except ToolError as error:
        print("refused:", error.message)
print("still running")
`,
          { limits: { maxToolCalls: 3 } },
        );
        expect(result.status).toBe("success");
        expect(result.toolCallsMade).toBe(3);
        expect(result.output).toBe(
          "ok 0\nok 1\nok 2\n" +
            "refused: Tool call limit reached (3). No more tool calls allowed in this execution.\n".repeat(2) +
            "still running\n",
        );
      },
      timeout,
    );

    it(
      "keeps host secrets out of the script and of the commands its tools run",
      async () => {
        const result = await run(
          `
import os
from codecall import terminal
print(sorted(k for k in ("OPENAI_API_KEY", "DATABASE_URL", "CODECALL_PASSTHROUGH_TOKEN") if k in os.environ))
print("PATH" in os.environ)
shown = terminal("env")["output"]
print("sk-codecall" in shown, "planted-db-password" in shown, "passthrough-allowed-value" in shown)
`,
          { env: { passthrough: ["CODECALL_PASSTHROUGH_TOKEN"] } },
        );
        expect(result.output).toBe("['CODECALL_PASSTHROUGH_TOKEN']\nTrue\nFalse False True\n");
      },
      timeout,
    );

    it(
      "masks the host's secrets that a host tool returns, in the result and in live output, split or not",
      async () => {
        // Set in the host process only: the environment's own env does not have them (on a remote
        // backend it never could), so only the host's env can tell the redactor about them.
        const hostSecrets = { CODECALL_HOST_API_KEY: "host-api-key-7f3e9a1c5d2b8e4f", CODECALL_SMTP_PASS: "host-smtp-pass-0a9b8c7d" };
        Object.assign(process.env, hostSecrets);
        const readHostEnv = defineTool({
          name: "read_host_env",
          description: "Returns a variable of the host process.",
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
          execute: ({ name }: { name: string }) => process.env[name] ?? "",
        });
        const chunks: Uint8Array[] = [];
        try {
          const result = await run(
            `
import sys, time
from codecall import read_host_env
for name in ("CODECALL_HOST_API_KEY", "CODECALL_SMTP_PASS"):
    value = read_host_env(name)
    print(name, value)
    # Split across chunks on purpose: half, a pause, the rest.
    sys.stdout.write(value[:9]); sys.stdout.flush(); time.sleep(0.3)
    sys.stdout.write(value[9:] + "\\n"); sys.stdout.flush()
    print(name, value, file=sys.stderr)
sys.exit(3)
`,
            { tools: [readHostEnv], onStdout: (chunk) => chunks.push(chunk) },
          );
          const streamed = chunks.map((chunk) => new TextDecoder().decode(chunk)).join("");
          expect(result.status).toBe("error");
          expect(result.output).toContain("CODECALL_HOST_API_KEY host-a...8e4f");
          for (const secret of Object.values(hostSecrets)) {
            for (const shown of [result.output, result.stderr, streamed]) expect(shown).not.toContain(secret.slice(5, 13));
          }
          expect(streamed).toContain("CODECALL_SMTP_PASS host-s...8c7d");
        } finally {
          for (const name of Object.keys(hostSecrets)) delete process.env[name];
        }
      },
      timeout,
    );

    it(
      "reads no more of the script's output while a live-output consumer holds a chunk, then delivers every byte",
      async () => {
        // 8 MiB: far more than any pipe, socket or relay buffer between the script and the host.
        const LINES = 8 * 1024;
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        let chunks = 0;
        let bytes = 0;
        const running = run(`import sys\nline = "x" * 1023 + "\\n"\nfor _ in range(${LINES}):\n    sys.stdout.write(line)\nprint("done")`, {
          onStdout: (chunk) => {
            chunks += 1;
            bytes += chunk.length;
            // The first chunk is taken only when the test says so; the others at once.
            return chunks === 1 ? held : undefined;
          },
        });
        await expect.poll(() => chunks, { timeout: timeout / 2 }).toBe(1);
        // Whatever the script writes meanwhile waits where it is (in its pipe, or the backend's
        // own bounded buffers), not in a host-side queue that another read would fill.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(chunks).toBe(1);
        release();
        const result = await running;
        expect(result.status).toBe("success");
        expect(bytes).toBe(LINES * 1024 + "done\n".length);
        expect(chunks).toBeGreaterThan(1);
      },
      timeout,
    );

    it(
      "times a run out and ends it, though its live-output consumer never takes a chunk",
      async () => {
        let chunks = 0;
        const result = await run(
          `import sys, time\nline = "x" * 1023 + "\\n"\nfor _ in range(8 * 1024):\n    sys.stdout.write(line)\ntime.sleep(60)`,
          {
            limits: { timeoutMs: 1_500, killGraceMs: 500 },
            onStdout: () => {
              chunks += 1;
              return new Promise<void>(() => {});
            },
          },
        );
        expect(result.status).toBe("timeout");
        // The kill was seen to end the script: not a backend that lost track of it.
        expect(result.error).not.toMatch(/may still be running/);
        expect(chunks).toBeGreaterThanOrEqual(1);
      },
      timeout,
    );

    it(
      "leaves no piece of a secret where truncation cuts the output",
      async () => {
        // A value the redactor knows (dropped from the environment's env), printed so that it
        // straddles both cuts of a 100-byte budget (the head keeps 40 bytes, the tail 60).
        const secret = PLANTED_SECRETS.DATABASE_URL;
        const result = await run(`print("." * 25 + ${JSON.stringify(secret)} + "." * 300 + ${JSON.stringify(secret)} + "." * 40)`, {
          limits: { maxStdoutBytes: 100 },
        });
        expect(result.stdoutTruncated).toBe(true);
        // The file the whole output went to is masked as the output is.
        const saved = new TextDecoder().decode(await environment.readFile(result.stdoutSpillPath!));
        expect(saved).toContain(".".repeat(300));
        for (let start = 0; start + 8 <= secret.length; start += 1) {
          expect(result.output).not.toContain(secret.slice(start, start + 8));
          expect(saved).not.toContain(secret.slice(start, start + 8));
        }
        await environment.remove(result.stdoutSpillPath!);
      },
      timeout,
    );

    it(
      "passes a passthrough name's host value to the script, masked in its output",
      async () => {
        const name = "CODECALL_PASSED_API_KEY";
        const value = "passed-from-host-5e6f7a8b9c0d";
        process.env[name] = value;
        try {
          const result = await run(
            `
import os
from codecall import terminal
value = os.environ.get("${name}", "")
print(len(value), value[::-1])
print(value)
print(terminal("printenv ${name}")["output"].strip() == value)
`,
            { env: { passthrough: [name] } },
          );
          expect(result.output).toBe(`${value.length} ${[...value].reverse().join("")}\npassed...9c0d\nTrue\n`);
        } finally {
          delete process.env[name];
        }
      },
      timeout,
    );

    it(
      "refuses tools outside the allow-list, also when called by name",
      async () => {
        const result = await run(
          `
from codecall import call_tool, ToolError
try:
    from codecall import terminal
    print("imported terminal")
except ImportError:
    print("no terminal stub")
try:
    call_tool("terminal", command="id")
except ToolError as error:
    print(error.message)
`,
          { allowedTools: ["echo"] },
        );
        expect(result.output).toBe("no terminal stub\nTool 'terminal' is not available in this run. Available: echo\n");
        expect(result.toolCallsMade).toBe(0);
      },
      timeout,
    );

    it(
      "gives no tools at all for an empty allow-list",
      async () => {
        const result = await run(
          'from codecall import call_tool, ToolError\ntry:\n    call_tool("echo", text="x")\nexcept ToolError as e:\n    print(e.message)',
          {
            allowedTools: [],
          },
        );
        expect(result.output).toBe("Tool 'echo' is not available: no tools are enabled in this run.\n");
      },
      timeout,
    );

    it(
      "reports wrong argument types as ToolError, and the script goes on",
      async () => {
        const result = await run(`
from codecall import echo, ToolError
for bad in (123, {1, 2}, float("nan")):
    try:
        echo(bad)
    except ToolError as error:
        print(type(bad).__name__, "->", error.message[:60])
print(echo("fine")["text"])
`);
        expect(result.status).toBe("success");
        const lines = result.output.trim().split("\n");
        expect(lines[0]).toMatch(/^int -> Invalid arguments: 'text' must be a string/);
        expect(lines[1]).toMatch(/^set -> arguments must be JSON-serialisable/);
        expect(lines[2]).toMatch(/^float -> arguments must be JSON-serialisable/);
        expect(lines[3]).toBe("fine");
        expect(result.toolCallsMade).toBe(1);
      },
      timeout,
    );

    it(
      "refuses a tool result nested deeper than the limit; that call fails and the script goes on",
      async () => {
        const result = await run(`
from codecall import build, echo, ToolError
print(len(build(60)))
try:
    build(3000)
    print("decoded")
except ToolError as error:
    print("refused:", error.message)
print(echo("next")["text"])
`);
        expect(result.status).toBe("success");
        expect(result.output).toBe("1\nrefused: build returned a result that is nested deeper than the 64-level limit of tool results\nnext\n");
      },
      timeout,
    );

    it(
      "refuses a tool result whose answer exceeds the frame limit, naming the limit",
      async () => {
        const result = await run(
          `
from codecall import build, ToolError
try:
    build(0, size=200_000)
    print("delivered")
except ToolError as error:
    print("refused:", error.message)
print(len(build(0, size=50_000)))
`,
          { limits: { maxFrameBytes: 100_000 } },
        );
        expect(result.status).toBe("success");
        expect(result.output).toMatch(
          /^refused: build returned a result that is too large: its answer takes \d+ bytes, over the 100000-byte frame limit\n50000\n$/,
        );
      },
      timeout,
    );

    it(
      "fails only its own call when an answer is too deep for the guest to decode; calls in flight and later ones work",
      async () => {
        // The host's depth limit is raised so the answer reaches the guest; Python's json recurses
        // once per level and gives up near 1000.
        const result = await run(
          `
import os, tempfile, threading, time
from codecall import build, echo, terminal, ToolError
gate = tempfile.mkdtemp()
slow = {}
def in_flight():
    try:
        slow["answer"] = terminal(f"touch {gate}/started; while [ ! -e {gate}/release ]; do sleep 0.05; done; echo slow-done")["output"].strip()
    except Exception as error:
        slow["answer"] = "failed: %s" % error
worker = threading.Thread(target=in_flight)
worker.start()
deadline = time.monotonic() + 60
while not os.path.exists(f"{gate}/started") and time.monotonic() < deadline:
    time.sleep(0.02)
try:
    build(3000)
    print("decoded")
except ToolError as error:
    print("deep:", error.message[:40])
open(f"{gate}/release", "w").close()
worker.join()
print(slow["answer"])
print(echo("after")["text"])
`,
          // A guest whose poller died would wait for ever: the time limit turns that into a failure.
          { limits: { maxJsonDepth: 100_000, timeoutMs: 30_000 } },
        );
        expect(result.status).toBe("success");
        expect(result.output).toBe("deep: unreadable answer from the codecall host\nslow-done\nafter\n");
      },
      timeout,
    );

    it(
      "survives tool errors that cannot be read, and deep arguments while progress is reported",
      async () => {
        const reported: string[] = [];
        const result = await run(
          `
import json, codecall, _codecall_client
from codecall import echo, fail_oddly, ToolError
for how in ("message-getter", "proxy"):
    try:
        fail_oddly(how)
    except ToolError as error:
        print(how, "->", error.message)
print(echo("before")["text"])
# 100 000 levels of arguments, written by hand: Python's own encoder would refuse them. The
# transport's client encodes with _codecall_protocol's encode_request, imported by that name.
def deep_frame(request_id, method, params):
    head = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"build","arguments":{"levels":0,"payload":' % json.dumps(request_id)
    return (head + "[" * 100_000 + "]" * 100_000 + "}}}\\n").encode()
plain, _codecall_client.encode_request = _codecall_client.encode_request, deep_frame
try:
    codecall.build(0)
    print("accepted")
except ToolError as error:
    print("deep:", error.message)
_codecall_client.encode_request = plain
print(echo("after")["text"])
`,
          // A naive progress reporter: it stringifies whatever it is given, and it throws. (A host
          // that lost a call's answer would leave the script waiting: the time limit ends that.)
          {
            limits: { timeoutMs: 30_000 },
            onToolCall: (event) => {
              reported.push(JSON.stringify(event).slice(0, 100));
              throw new Error("progress display is gone");
            },
          },
        );
        expect(result.output).toBe(
          "message-getter -> an error that cannot be read (reading its message threw)\n" +
            "proxy -> an error that cannot be read (reading its message threw)\n" +
            "before\n" +
            "deep: Request nested too deeply: arguments may nest at most 64 levels of arrays/objects\n" +
            "after\n",
        );
        expect(result.status).toBe("success");
        expect(reported.length).toBe(8);
      },
      timeout,
    );

    it(
      "reports a syntax error with status error and the traceback",
      async () => {
        const result = await run("print('unclosed'");
        expect(result.status).toBe("error");
        expect(result.exitCode).toBe(1);
        expect(result.output).toContain("SyntaxError");
        expect(result.error).toMatch(/^Script exited with code 1: SyntaxError/);
      },
      timeout,
    );

    it(
      "reports an uncaught exception with its traceback",
      async () => {
        const result = await run('print("before")\n1 / 0');
        expect(result.status).toBe("error");
        expect(result.output).toMatch(/^before\n--- stderr ---\nTraceback[\s\S]*ZeroDivisionError: division by zero/);
        expect(result.error).toBe("Script exited with code 1: ZeroDivisionError: division by zero");
      },
      timeout,
    );

    it(
      "ends the output of a common mistake with a one-line hint",
      async () => {
        const result = await run("from hermes_tools import terminal");
        expect(result.status).toBe("error");
        expect(result.error).toMatch(/ModuleNotFoundError: No module named 'hermes_tools'/);
        expect(result.output).toMatch(/ModuleNotFoundError[^\n]*\n\nHint: The tools are in the `codecall` module: from codecall import \w+/);
      },
      timeout,
    );

    it(
      "reports a non-zero exit code",
      async () => {
        const result = await run("import sys\nprint('bye')\nsys.exit(3)");
        expect(result).toMatchObject({ status: "error", exitCode: 3, error: "Script exited with code 3" });
      },
      timeout,
    );

    it(
      "kills the script and everything it started on timeout",
      async () => {
        const dir = await environment.tempDir();
        const pidFile = `${dir}/child.pid`;
        const daemonPidFile = `${dir}/daemon.pid`;
        const result = await run(
          `
import subprocess, time
child = subprocess.Popen(["sleep", "300"])
open(${JSON.stringify(pidFile)}, "w").write(str(child.pid))
# A daemon: its own session, and its parent exits at once, so it belongs to init.
subprocess.run(["sh", "-c", "sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${daemonPidFile}"], start_new_session=True, check=True)
print("started", flush=True)
time.sleep(300)
`,
          // Long enough for a slow start (a loaded machine, a remote backend): the script must be running
          // and have spread out when the limit strikes.
          { limits: { timeoutMs: 8_000, killGraceMs: 1_000 } },
        );
        expect(result.status).toBe("timeout");
        expect(result.error).toBe("Script timed out after 8s and was killed.");
        expect(result.output).toBe("started\n\n⏰ Script timed out after 8s and was killed.");
        expect((await environment.executeOneshot(processGoneCommand(pidFile))).stdout.trim()).toBe("gone");
        expect((await environment.executeOneshot(processGoneCommand(daemonPidFile))).stdout.trim()).toBe("gone");
        await environment.executeOneshot(`rm -rf '${dir}'`);
      },
      timeout,
    );

    it(
      "keeps what the script printed before a timeout kill, though it never flushed",
      async () => {
        // Without live output stdout is block-buffered: the kill must flush it, partial line included.
        const result = await run(
          `
import sys, time
print("first line")
print("no newline yet", end="")
sys.stderr.write("on stderr\\n")
time.sleep(300)
`,
          { limits: { timeoutMs: 8_000, killGraceMs: 2_000 } },
        );
        expect(result.status).toBe("timeout");
        expect(result.output.startsWith("first line\nno newline yet")).toBe(true);
        expect(result.output).toContain("on stderr\n");
      },
      timeout,
    );

    // The run ends when the script's own process exits: a helper that escaped the process group and
    // holds stdout turns it neither into a hang nor into a timeout, and does not outlive it. The
    // limits are generous on purpose; the status says whether the run waited for the helper.
    const endsWithTheScript = async (helper: string) => {
      const result = await run(
        `
import os, subprocess, sys, time
me = os.path.abspath(__file__)
ready = me + ".ready"
${helper}
for _ in range(300):
    if os.path.exists(ready):
        break
    time.sleep(0.1)
print("script exits", flush=True)
print(me)
`,
        { limits: { timeoutMs: 60_000 } },
      );
      expect(result.status).toBe("success");
      const [helperLine, exitLine, scriptPath] = result.output.split("\n");
      expect([helperLine, exitLine]).toEqual(["helper up", "script exits"]);
      expect((await environment.executeOneshot(leftoverProcessesCommand(scriptPath!))).stdout.trim()).toBe("none");
    };

    it(
      "ends the run when the script exits, though a helper in its own session holds stdout",
      async () => {
        await endsWithTheScript(`
helper = "import sys, time\\nprint('helper up', flush=True)\\nopen(sys.argv[1] + '.ready', 'w').close()\\ntime.sleep(300)"
subprocess.Popen([sys.executable, "-c", helper, me], start_new_session=True)
`);
      },
      timeout,
    );

    it(
      "ends the run when the script exits, though a double-forked helper with a cleared env holds stdout",
      async () => {
        // No process group, no parent and no env tag lead to this helper: only a subreaper does.
        await endsWithTheScript(`
helper = "import os, sys, time\\nif os.fork(): sys.exit(0)\\nos.setsid()\\nprint('helper up', flush=True)\\nopen(sys.argv[1] + '.ready', 'w').close()\\ntime.sleep(300)"
subprocess.Popen([sys.executable, "-c", helper, me], start_new_session=True, env={})
`);
      },
      timeout,
    );

    it(
      "ends a daemonised helper when the script exits normally",
      async () => {
        const result = await run(`
import os, subprocess, sys
me = os.path.abspath(__file__)
daemon = "import os, sys, time\\nif os.fork(): sys.exit(0)\\nos.setsid()\\ntime.sleep(300)"
subprocess.run([sys.executable, "-c", daemon, me], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(me)
`);
        expect(result.status).toBe("success");
        expect((await environment.executeOneshot(leftoverProcessesCommand(result.output.trim()))).stdout.trim()).toBe("none");
      },
      timeout,
    );

    it(
      "reports a fork bomb stopped by the timeout as timeout, and leaves nothing of it",
      async () => {
        // Capped at 600 processes so that a host without a pids limit survives the test; a container
        // with the default limit (512) runs out first, so its kill cannot start a process there.
        const result = await run(
          `
import os, time
print(os.path.abspath(__file__), flush=True)
main = os.getpid()
# One byte per fork and one per death: the bomb stays at most 600 processes strong.
forks, deaths = (os.open(os.path.abspath(__file__) + suffix, os.O_WRONLY | os.O_APPEND | os.O_CREAT) for suffix in (".forks", ".deaths"))
while True:
    if os.fstat(forks).st_size - os.fstat(deaths).st_size >= 600:
        time.sleep(0.5)
        continue
    try:
        if os.fork():
            os.write(forks, b"x")
    except OSError:
        # Out of processes: the forks die of it, as in \`while True: os.fork()\`, and free a slot
        # for another; the script's own process goes on, so only the timeout stops it.
        if os.getpid() != main:
            os.write(deaths, b"x")
            os._exit(1)
`,
          // A long kill grace puts the in-environment timeout after the point where a kill that
          // cannot start is given up by the engine (docker: 10 s): the run must still say timeout.
          { limits: { timeoutMs: 3_000, killGraceMs: 10_000 } },
        );
        expect(result.status).toBe("timeout");
        const scriptPath = result.output.split("\n")[0]!;
        expect((await environment.executeOneshot(leftoverProcessesCommand(scriptPath))).stdout.trim()).toBe("none");
      },
      timeout,
    );

    it(
      "caps 200 MiB of output with a notice and metadata, in bounded host memory",
      async () => {
        const before = process.memoryUsage().rss;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
        const result = await run(`
import sys
print("HEAD-MARK")
line = "x" * 1023 + "\\n"
for _ in range(200 * 1024):
    sys.stdout.write(line)
print("TAIL-MARK")
`).finally(() => clearInterval(sampler));
        expect(result.status).toBe("success");
        expect(result.stdoutTruncated).toBe(true);
        expect(result.stdoutBytesTotal).toBe(200 * 1024 * 1024 + "HEAD-MARK\n".length + "TAIL-MARK\n".length);
        expect(result.stdoutBytesCaptured + result.stdoutBytesOmitted).toBe(result.stdoutBytesTotal);
        expect(result.stdoutBytesCaptured).toBeLessThanOrEqual(50_000);
        expect(result.output.startsWith("HEAD-MARK\n")).toBe(true);
        expect(result.output.endsWith("TAIL-MARK\n")).toBe(true);
        expect(result.output).toMatch(
          /\[OUTPUT TRUNCATED - [\d,]+ bytes omitted out of 209,715,220 total\] \[its first 5,000,000 bytes are in \S+: read it in parts\]/,
        );
        // Holding the output would need over 200 MiB; the capture keeps 50 KB, and 5 MB for the file.
        // What else the host holds at its peak is garbage the GC has not collected yet, and how
        // much depends on its timing, not on the output's size (80–85 MiB at worst, seen on the
        // Daytona fake, whose server shares this process): a flood twice that bound tells them apart.
        console.log(`[codecall] host memory growth during a 200 MiB flood: ${((peak - before) / 2 ** 20).toFixed(1)} MiB`);
        expect(peak - before).toBeLessThan(120 * 1024 * 1024);
        const spillPath = result.stdoutSpillPath!;
        expect((await environment.executeOneshot(`wc -c < ${spillPath}`)).stdout.trim()).toBe("5000000");
        await environment.remove(spillPath);
      },
      timeout,
    );

    it(
      "streams stdout over its cap into the spill file, not holding it in host memory (openFileWriter)",
      async (context) => {
        if (environment.openFileWriter === undefined) return context.skip("the backend does not implement openFileWriter");
        const memory = sampleHostMemory();
        let growth = 0;
        const spillBytes = 160 * 1024 * 1024;
        const result = await run(
          `
import sys
line = "x" * 1023 + "\\n"
for _ in range(160 * 1024):
    sys.stdout.write(line)
print("TAIL-MARK")
`,
          { limits: { spillBytes } },
        ).finally(() => (growth = memory.stop()));
        expect(result).toMatchObject({ status: "success", stdoutTruncated: true });
        const spillPath = result.stdoutSpillPath!;
        expect(result.output).toContain(`[its first ${spillBytes.toLocaleString("en-US")} bytes are in ${spillPath}: read it in parts]`);
        expect((await environment.executeOneshot(`wc -c < ${spillPath}`)).stdout.trim()).toBe(String(spillBytes));
        await environment.remove(spillPath);
        // Holding the file until the end would take 160 MiB, and so would queueing it for an
        // environment slower than the script. What the host holds at its peak besides is garbage of
        // the output's way through it (on the local backend ~2 MiB; the bound leaves room for a GC
        // that runs late on a busy machine).
        console.log(`[codecall] host memory growth while streaming a 160 MiB spill: ${(growth / 2 ** 20).toFixed(1)} MiB`);
        expect(growth).toBeLessThan(64 * 1024 * 1024);
      },
      timeout * 2,
    );

    it(
      "saves stdout over its cap whole, byte for byte, to a private file the notice names and the next run can read",
      async () => {
        // Every byte value (invalid UTF-8 included), then multi-byte characters.
        const expected = new Uint8Array([
          ...Array.from({ length: 200 }, () => Array.from({ length: 256 }, (_, byte) => byte)).flat(),
          ...new TextEncoder().encode("héllo wörld ✓ 🎉\n".repeat(500)),
        ]);
        const result = await run(
          'import sys\nsys.stdout.buffer.write(bytes(range(256)) * 200)\nsys.stdout.buffer.write("héllo wörld ✓ 🎉\\n".encode() * 500)',
          { limits: { maxStdoutBytes: 1000 } },
        );
        expect(result).toMatchObject({ status: "success", stdoutTruncated: true, stdoutBytesTotal: expected.length });
        const path = result.stdoutSpillPath!;
        expect(path).toMatch(/^\//);
        expect(result.output).toContain(`[the whole output is in ${path}: read it in parts]`);
        expect(await environment.readFile(path)).toEqual(expected);
        expect((await environment.executeOneshot(`stat -c %a ${path}`)).stdout.trim()).toBe("600");
        const next = await run(
          `import hashlib\ndata = open(${JSON.stringify(path)}, "rb").read()\nprint(len(data), hashlib.sha256(data).hexdigest())`,
        );
        const digest = await crypto.subtle.digest("SHA-256", expected);
        const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
        expect(next.output).toBe(`${expected.length} ${hex}\n`);
        await environment.remove(path);
      },
      timeout,
    );

    it(
      "spills into a fresh private directory each time, whatever a script did to the last one (removed it, put a file or a symlink there)",
      async () => {
        const directoryOf = (path: string) => path.slice(0, path.lastIndexOf("/"));
        const mode = async (path: string) => (await environment.executeOneshot(`stat -c %a ${path}`)).stdout.trim();
        /** Runs `prelude`, then prints over the cap: the spill must land in a new 0700 directory, in a 0600 file. */
        const spill = async (prelude: string) => {
          const result = await run(`import os, shutil\n${prelude}\nprint("s" * 2000)`, { limits: { maxStdoutBytes: 100 } });
          const path = result.stdoutSpillPath;
          expect(result.output).toContain(`[the whole output is in ${path}: read it in parts]`);
          expect([await mode(directoryOf(path!)), await mode(path!)]).toEqual(["700", "600"]);
          return path!;
        };
        const bait = await environment.tempDir();
        const removed = directoryOf(await spill(""));
        const replacedByFile = directoryOf(await spill(`shutil.rmtree(${JSON.stringify(removed)})`));
        const replacedByLink = directoryOf(
          await spill(`shutil.rmtree(${JSON.stringify(replacedByFile)})\nopen(${JSON.stringify(replacedByFile)}, "w").close()`),
        );
        const last = directoryOf(
          await spill(`shutil.rmtree(${JSON.stringify(replacedByLink)})\nos.symlink(${JSON.stringify(bait)}, ${JSON.stringify(replacedByLink)})`),
        );
        expect(new Set([removed, replacedByFile, replacedByLink, last]).size).toBe(4);
        // Nothing was written where the planted symlink pointed.
        expect((await environment.executeOneshot(`ls -A ${bait}`)).stdout).toBe("");
        for (const path of [replacedByFile, replacedByLink, last, bait]) await environment.remove(path);
      },
      timeout,
    );

    it(
      "saves no more than spillBytes of stdout, and nothing with spillBytes 0",
      async () => {
        const script = 'import sys\nfor i in range(2000):\n    sys.stdout.write("line %05d\\n" % i)';
        const whole = Array.from({ length: 2000 }, (_, index) => `line ${String(index).padStart(5, "0")}\n`).join("");
        const capped = await run(script, { limits: { maxStdoutBytes: 500, spillBytes: 5000 } });
        const path = capped.stdoutSpillPath!;
        expect(capped.output).toContain(`[its first 5,000 bytes are in ${path}: read it in parts]`);
        expect(new TextDecoder().decode(await environment.readFile(path))).toBe(whole.slice(0, 5000));
        await environment.remove(path);

        const off = await run(script, { limits: { maxStdoutBytes: 500, spillBytes: 0 } });
        expect(off.stdoutTruncated).toBe(true);
        expect(off.stdoutSpillPath).toBeUndefined();
        expect(off.output).toMatch(/\[OUTPUT TRUNCATED - [\d,]+ bytes omitted out of 22,000 total\] \.\.\./);
      },
      timeout,
    );

    it(
      "interrupts on abort and cancels the tool call in flight",
      async () => {
        const controller = new AbortController();
        const startedBefore = hang.started;
        const cancelledBefore = hang.cancelled;
        const result = await run('from codecall import hang\nprint("calling", flush=True)\nhang()\nprint("not reached")', {
          signal: controller.signal,
          onToolCall: (event) => {
            if (event.phase === "start" && event.name === "hang") setTimeout(() => controller.abort("user sent a new message"), 50);
          },
        });
        expect(result.status).toBe("interrupted");
        expect(result.output).toBe("calling\n\n[execution interrupted — user sent a new message]");
        expect(result.error).toBe("Script was interrupted: user sent a new message");
        expect(hang.started - startedBefore).toBe(1);
        expect(hang.cancelled - cancelledBefore).toBe(1);
      },
      timeout,
    );

    it(
      options.treeHeld ? "starts one interpreter: the script leads its session, no launcher above it" : "starts the script under the launcher",
      async () => {
        const result = await run(SCRIPT_PROCESS_REPORT);
        const [pythons, leads, named, launched] = result.output.trim().split(" ");
        // The guest's start-up hook must know the script's own process either way.
        expect(named).toBe("named");
        if (options.treeHeld) expect([pythons, leads, launched]).toEqual(["1", "leads", "direct"]);
        else expect(launched).toBe("launched");
      },
      timeout,
    );

    it(
      "says so when the interpreter is missing",
      async () => {
        const result = await run("print(1)", { interpreter: "python-codecall-missing" });
        expect(result.status).toBe("error");
        expect(result.error).toMatch(/python-codecall-missing is not available in this environment/);
      },
      timeout,
    );

    it(
      "refuses empty code without starting anything",
      async () => {
        const result = await run("   \n");
        expect(result).toMatchObject({ status: "error", error: "No code provided.", exitCode: null });
      },
      timeout,
    );

    it(
      "leaves no run directory behind",
      async () => {
        const result = await run("import os\nprint(os.path.dirname(os.path.abspath(__file__)))");
        const runDir = result.output.trim();
        const check = await environment.executeOneshot(`test -e '${runDir}' && echo present || echo removed`);
        expect(check.stdout.trim()).toBe("removed");
      },
      timeout,
    );
  });
}
