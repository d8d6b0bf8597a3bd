import { describe, expect, it } from "vitest";
import { defineTool, executeCode, type EnvironmentProcess, type SpawnOptions } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { describeApprovals, describeExecution, describeRunEvents } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "../../src/index.js";

describeExecution({
  name: "local + uds",
  createEnvironment: ({ env }) => createEnvironment({ env: { ...process.env, ...env } }),
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "uds",
});

describeApprovals({ name: "local + uds", createEnvironment: () => createEnvironment(), transport: () => createTransport() });

describeRunEvents({
  name: "local + uds",
  createEnvironment: () => createEnvironment(),
  transport: () => createTransport(),
  expectTransportId: "uds",
});

describe("uds guest client against a hostile script", () => {
  const echo = defineTool({
    name: "echo",
    description: "Returns its text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => text,
  });
  const run = async (code: string, maxFrameBytes?: number) => {
    const environment = createEnvironment();
    try {
      return await executeCode({
        code,
        environment,
        transport: createTransport(),
        tools: [echo],
        ...(maxFrameBytes ? { limits: { maxFrameBytes } } : {}),
      });
    } finally {
      await environment.close();
    }
  };

  it("refuses a wrong token and a missing one", async () => {
    const result = await run(`
import os
os.environ["CODECALL_RPC_TOKEN"] = "not-the-token"
import codecall
try:
    codecall.echo("x")
except codecall.ToolError as error:
    print("wrong:", error.message)
import _codecall_client
_codecall_client.client._token = None
try:
    codecall.echo("x")
except codecall.ToolError as error:
    print("missing:", error.message)
`);
    expect(result.output).toBe("wrong: Unauthorized: wrong or missing run token\n" + "missing: Unauthorized: wrong or missing run token\n");
    expect(result.toolCallsMade).toBe(0);
  });

  it("survives garbage and oversized frames written straight to the socket", async () => {
    const result = await run(
      `
import json, os, socket
from codecall import echo
raw = socket.socket(socket.AF_UNIX)
raw.connect(os.environ["CODECALL_RPC_SOCKET"])
reader = raw.makefile("rb")
raw.sendall(b"\\x00garbage{{{\\n")
print(json.loads(reader.readline())["error"]["code"])
raw.sendall(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "hello", "params": {"token": os.environ["CODECALL_RPC_TOKEN"], "protocol": 1}}).encode() + b"\\n")
reader.readline()
raw.sendall(b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"' + b"x" * 200000 + b'"}}}\\n')
answer = json.loads(reader.readline())
print(answer["id"], answer["error"]["code"])
print(echo("later calls work"))
try:
    echo("y" * 200000)
except Exception as error:
    print(type(error).__name__, "request too large" in str(error))
`,
      65_536,
    );
    expect(result.output).toBe("-32700\n42 -32006\nlater calls work\nToolError True\n");
  });
});

describe("a backend whose kill rejects", () => {
  it("does not become an unhandled rejection in the host: the timed-out run ends as usual", async () => {
    const local = createEnvironment();
    // Its processes die when killed, and then report the kill as failed.
    const rejectingKill = new Proxy(local, {
      get(target, key) {
        if (key === "spawn") {
          return async (command: string, options?: SpawnOptions) => {
            const spawned = await target.spawn(command, options);
            const wrapped: EnvironmentProcess = {
              stdin: spawned.stdin,
              stdout: spawned.stdout,
              stderr: spawned.stderr,
              wait: () => spawned.wait(),
              kill: async (killOptions) => {
                await spawned.kill(killOptions);
                throw new Error("the backend could not confirm the kill");
              },
            };
            return wrapped;
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const result = await executeCode({
        code: "import time\ntime.sleep(30)",
        environment: rejectingKill,
        transport: createTransport(),
        tools: [],
        limits: { timeoutMs: 300, killGraceMs: 200 },
      });
      expect(result.status).toBe("timeout");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await local.close();
    }
  }, 30_000);
});
