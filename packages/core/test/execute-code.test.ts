/**
 * `executeCode` alone, on the in-memory environment and transport pair: the script as installed,
 * what it prints, the env it gets, and tool calls through the run's dispatcher.
 */
import { describe, expect, it, vi } from "vitest";
import type { ToolCallEvent } from "../src/rpc/dispatcher.js";
import { RpcErrorCode } from "../src/protocol/messages.js";
import type { ToolDefinition } from "../src/tool.js";
import type { Guest } from "./support/memory-guest.js";
import { useMemoryRuns } from "./support/memory-runs.js";
import { memoryClientSource } from "./support/memory-transport.js";
import { echoTool } from "./support/rpc.js";

const { pair, execute, run } = useMemoryRuns();

const hiddenTool: ToolDefinition = { name: "hidden", description: "Not allowed.", parameters: { type: "object" }, execute: () => "leaked" };

describe("executeCode on the in-memory pair", () => {
  it("runs the script written to the run dir and returns what it printed", async () => {
    const result = await run((script) => script.print(`ran: ${script.source}`), { code: "print('hi')  # v1" });
    expect(result).toEqual({
      status: "success",
      output: "ran: print('hi')  # v1\n",
      exitCode: 0,
      toolCallsMade: 0,
      durationSeconds: expect.any(Number) as number,
      stdoutTruncated: false,
      stdoutBytesTotal: 23,
      stdoutBytesCaptured: 23,
      stdoutBytesOmitted: 0,
      stderr: "",
      stderrTruncated: false,
      backend: "memory",
      transport: "memory",
    });
  });

  it("runs it with the launcher and the interpreter asked for, the files private to the user", async () => {
    const memory = pair(() => {}, { interpreters: ["/opt/py/bin/python3.12"] });
    const { environment } = memory;
    const writeFile = vi.spyOn(environment, "writeFile");
    const result = await execute(memory, { code: "pass", interpreter: "/opt/py/bin/python3.12" });
    expect(result.status).toBe("success");
    const [spawned] = environment.spawned;
    expect(spawned!.command).toMatch(/^export CODECALL_SAFE_PATH="\$\{PYTHONSAFEPATH-\}" PYTHONSAFEPATH=1; exec \/opt\/py\/bin\/python3\.12 -c '/);
    expect(spawned!.command.endsWith(" /mem/run-1/script.py")).toBe(true);
    expect(spawned!.options).toMatchObject({ clearEnv: true, timeoutMs: 300_000 + 5_000 + 5_000 });
    expect(writeFile.mock.calls.map(([path, , options]) => [path, options]).sort()).toEqual([["/mem/run-1/run.zip", { mode: 0o600 }]]);
    expect(spawned!.command.endsWith(" /mem/run-1/run.zip /mem/run-1/script.py")).toBe(true);
  });

  it("installs a module offering the allowed tools with the serving transport's client", async () => {
    const result = await run(
      async (script) => {
        const module = await script.importModule("host_tools");
        script.print(
          module.clientSource === memoryClientSource("memory"),
          module.source.includes("def echo("),
          module.source.includes("def hidden("),
        );
      },
      { tools: [echoTool, hiddenTool], allowedTools: ["echo"], moduleName: "host_tools" },
    );
    expect(result.output).toBe("true true false\n");
  });

  it("gives the script the scrubbed env, the transport's variables and Python's settings", async () => {
    let env: Record<string, string> = {};
    const memory = pair(
      (script) => {
        env = { ...script.env };
      },
      { env: { PATH: "/bin", PYTHONPATH: "/site", DB_PASSWORD: "hunter2-hunter2", LS_COLORS: "x" } },
    );
    const result = await execute(memory, { env: { host: {}, set: { EXTRA: "1" } }, limits: { maxFrameBytes: 4096 } });
    expect(result.status).toBe("success");
    expect(env).toEqual({
      PATH: "/bin",
      EXTRA: "1",
      PYTHONPATH: "/mem/run-1:/site",
      PYTHONDONTWRITEBYTECODE: "1",
      // Nobody streams the output: stdout stays block-buffered, and the guest flushes it on a kill.
      CODECALL_OUTPUT: "buffered",
      PYTHONIOENCODING: "utf-8",
      PYTHONUTF8: "1",
      CODECALL_RPC_MAX_FRAME: "4096",
      CODECALL_MEMORY_MEMORY: "memory://listener-1",
      CODECALL_RPC_TOKEN: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
    });
  });

  it("buffers the output by lines when someone streams it live, by blocks otherwise, whatever the host exports", async () => {
    const envs: Record<string, string>[] = [];
    const memory = pair((script) => void envs.push({ ...script.env }), { env: { PATH: "/bin", PYTHONUNBUFFERED: "1" } });
    await execute(memory, { env: { host: {} } });
    await execute(memory, { env: { host: {} }, onStdout: () => {} });
    await execute(memory, { env: { host: {} }, onStderr: () => {} });
    expect(envs.map((env) => [env.PYTHONUNBUFFERED, env.CODECALL_OUTPUT])).toEqual([
      [undefined, "buffered"],
      ["1", "lines"],
      ["1", "lines"],
    ]);
  });

  it("runs the script in the working directory asked for", async () => {
    const result = await run((script) => script.print(script.cwd), { cwd: "/work" });
    expect(result.output).toBe("/work\n");
  });

  it("reports a script that fails with its stderr and exit code", async () => {
    const result = await run((script) => {
      script.print("halfway");
      throw new Error("ValueError: bad input");
    });
    expect(result).toMatchObject({
      status: "error",
      exitCode: 1,
      error: "Script exited with code 1: ValueError: bad input",
      output: "halfway\n--- stderr ---\nValueError: bad input\n",
      stderr: "ValueError: bad input\n",
    });
  });

  it("says so when the interpreter is missing", async () => {
    const result = await run(() => {}, { interpreter: "python9" });
    expect(result).toMatchObject({ status: "error", exitCode: 127 });
    expect(result.error).toBe("python9 is not available in this environment. Install Python 3 there, or point the interpreter option at it.");
  });

  it.each(["", "  \n\t"])("returns an error for blank code %j without touching the environment", async (code) => {
    const memory = pair(() => {});
    const tempDir = vi.spyOn(memory.environment, "tempDir");
    const result = await execute(memory, { code });
    expect(result).toMatchObject({ status: "error", output: "No code provided.", exitCode: null, toolCallsMade: 0, transport: "memory" });
    expect(tempDir).not.toHaveBeenCalled();
    expect(memory.transport.opens).toBe(0);
  });
});

describe("tool calls through the dispatcher", () => {
  /** Calls each tool in turn and prints what came back or the ToolError. */
  const callEach =
    (calls: [string, Record<string, unknown>?][]): Guest =>
    async (script) => {
      const codecall = await script.importModule();
      for (const [name, args] of calls) {
        try {
          script.print(name, "->", JSON.stringify(await codecall.call(name, args)));
        } catch (error) {
          script.print(name, "!!", (error as Error).message);
        }
      }
    };

  it("serves allowed tools and refuses the others, counting only dispatched calls", async () => {
    const events: ToolCallEvent[] = [];
    const result = await run(
      callEach([
        ["echo", { text: "ab", times: 2 }],
        ["hidden", {}],
        ["nope", {}],
        ["echo", { text: 5 }],
      ]),
      { tools: [echoTool, hiddenTool], allowedTools: ["echo"], onToolCall: (event) => events.push(event) },
    );
    expect(result.status).toBe("success");
    expect(result.output).toBe(
      [
        'echo -> "abab"',
        "hidden !! Tool 'hidden' is not available in this run. Available: echo",
        "nope !! Tool 'nope' is not available in this run. Available: echo",
        "echo !! Invalid arguments: 'text' must be a string, got the integer 5",
        "",
      ].join("\n"),
    );
    expect(result.toolCallsMade).toBe(1);
    expect(events.map((event) => `${event.phase} ${event.name}`)).toEqual(["start echo", "end echo"]);
  });

  it("refuses calls past the budget and the script goes on", async () => {
    const result = await run(
      callEach([
        ["echo", { text: "1" }],
        ["echo", { text: "2" }],
        ["echo", { text: "3" }],
      ]),
      { tools: [echoTool], limits: { maxToolCalls: 2 } },
    );
    expect(result.output).toBe('echo -> "1"\necho -> "2"\necho !! Tool call limit reached (2). No more tool calls allowed in this execution.\n');
    expect(result.toolCallsMade).toBe(2);
  });

  it("passes a tool's failure to the script as a ToolError", async () => {
    const failing: ToolDefinition = {
      name: "fail",
      description: "Fails.",
      parameters: { type: "object" },
      execute: () => Promise.reject(new Error("quota exceeded")),
    };
    let code: number | undefined;
    const result = await run(
      async (script) => {
        const codecall = await script.importModule();
        await codecall.call("fail", {}).catch((error: { code: number }) => (code = error.code));
      },
      { tools: [failing] },
    );
    expect(result.status).toBe("success");
    expect(code).toBe(RpcErrorCode.ToolFailed);
    expect(result.toolCallsMade).toBe(1);
  });

  it("lets tools act on the run's environment with its scrubbed env and working directory", async () => {
    const listing: ToolDefinition = {
      name: "ls",
      description: "Lists.",
      parameters: { type: "object" },
      execute: async (_args, context) => (await context.environment.execute("ls")).stdout,
    };
    const memory = pair(callEach([["ls", {}]]), {
      env: { PATH: "/bin", API_KEY: "k-123456789" },
      commands: (_command, options) => ({
        exitCode: 0,
        stdout: `${options.cwd} ${Object.keys(options.env ?? {}).join(",")} ${options.clearEnv}`,
        stderr: "",
        timedOut: false,
      }),
    });
    const result = await execute(memory, { tools: [listing], cwd: "/work" });
    expect(result.output).toBe('ls -> "/work PATH true"\n');
  });

  it("refuses a guest that does not present the run's token", async () => {
    const result = await run(
      async (script) => {
        script.env.CODECALL_RPC_TOKEN = "0".repeat(64);
        await script.importModule();
      },
      { tools: [echoTool] },
    );
    expect(result.status).toBe("error");
    expect(result.stderr).toBe("ToolError: Unauthorized: wrong or missing run token\n");
  });
});
