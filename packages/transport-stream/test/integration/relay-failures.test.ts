// What happens around the relay on the local backend: where its socket lives, what is left after
// the run, and how a relay that cannot start or dies mid-call ends —
// always a clear error, never a hang, and the host keeps going.
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodecallError, defineTool, executeCode } from "@codecall/core";
import { RpcDispatcher } from "@codecall/core/protocol";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport } from "../../src/index.js";

/** Pids of live processes whose command line contains `text`. */
async function processesNaming(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.split("\0").some((arg) => arg.includes(text))) pids.push(Number(entry));
  }
  return pids;
}

let started = 0;
const tools = [
  defineTool({
    name: "echo",
    description: "Returns its text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => text,
  }),
  defineTool({
    name: "hang",
    description: "Never finishes on its own; ends when cancelled.",
    parameters: { type: "object", properties: {} },
    execute: (_args: Record<string, never>, context) => {
      started += 1;
      return new Promise((_, reject) => context.signal.addEventListener("abort", () => reject(new Error("cancelled"))));
    },
  }),
];

/** Opens the stream transport on `runDir` with a dispatcher for {@link tools}, as executeCode would. */
function openRelay(environment: LocalEnvironment, runDir: string, interpreter: string) {
  const token = "t".repeat(64);
  const dispatcher = new RpcDispatcher({ tools, token, environment, runId: "test", maxToolCalls: 10 });
  return createTransport().open(environment, { runId: "test", runDir, token, dispatcher, maxFrameBytes: 1 << 20, interpreter });
}

describe("stream relay on the local backend", () => {
  let environment: LocalEnvironment;

  beforeAll(() => {
    environment = createEnvironment();
  });

  afterAll(async () => {
    await environment.close();
  });

  it("listens on a 0600 socket in the run dir and leaves nothing running or on disk after close", async () => {
    const runDir = await environment.tempDir();
    const session = await openRelay(environment, runDir, "python3");
    const socketPath = session.guestEnv.CODECALL_RPC_SOCKET!;
    expect(path.dirname(socketPath)).toBe(runDir);
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
    expect((await stat(runDir)).mode & 0o777).toBe(0o700);
    expect(await processesNaming(socketPath)).toHaveLength(1);
    await session.close();
    await session.close();
    expect(existsSync(socketPath)).toBe(false);
    expect(await processesNaming(socketPath)).toEqual([]);
    await rm(runDir, { recursive: true, force: true });
  });

  it("starts the relay without the environment's variables, so none can be read from its /proc/PID/environ", async () => {
    const planted = createEnvironment({ env: { ...process.env, CODECALL_PLANTED_SECRET: "planted-5e1f" } });
    const runDir = await planted.tempDir();
    const session = await openRelay(planted, runDir, "python3");
    try {
      const [relayPid] = await processesNaming(session.guestEnv.CODECALL_RPC_SOCKET!);
      const relayEnv = await readFile(`/proc/${relayPid}/environ`, "utf8");
      expect(relayEnv).toContain("PYTHONDONTWRITEBYTECODE=1");
      expect(relayEnv).not.toContain("planted-5e1f");
    } finally {
      await session.close();
      await planted.close();
      await rm(runDir, { recursive: true, force: true });
    }
  });

  it("fails to open with a clear error when the interpreter is missing", async () => {
    const runDir = await environment.tempDir();
    const opening = openRelay(environment, runDir, "python-codecall-missing");
    await expect(opening).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error, "TRANSPORT_FAILED"));
    await expect(opening).rejects.toThrow(/the stream relay did not start: python-codecall-missing is not available in this environment/);
    await rm(runDir, { recursive: true, force: true });
  });

  it("fails to open, naming the limit, when the run dir is too long for a socket", async () => {
    const runDir = path.join(await mkdtemp(path.join(tmpdir(), "codecall-")), "d".repeat(100));
    await expect(openRelay(environment, runDir, "python3")).rejects.toThrow(/too long for a Unix socket path .* of at most 100 bytes/);
    await rm(path.dirname(runDir), { recursive: true, force: true });
  });

  it("falls back to the next transport when the relay cannot start, and says why", async () => {
    // A relay that never greets: the interpreter runs, but not the relay (the marker finds it later).
    const marker = `codecall-stuck-${process.pid}`;
    const stubborn = createTransport({ startTimeoutMs: 300 });
    const transport = [
      Object.assign(Object.create(stubborn) as typeof stubborn, {
        open: (environment_: LocalEnvironment, run: Parameters<typeof stubborn.open>[1]) =>
          stubborn.open(environment_, { ...run, interpreter: `python3 -c "import time; time.sleep(30)" ${marker}` }),
      }),
      createFileTransport(),
    ];
    const result = await executeCode({ code: 'from codecall import echo\nprint(echo("via fallback"))', environment, transport, tools });
    expect(result).toMatchObject({ status: "success", output: "via fallback\n", transport: "file" });
    expect(result.transportsSkipped).toEqual([
      expect.stringMatching(/^stream: the stream relay did not start: the relay did not start within 300 ms/),
    ]);
    expect(await processesNaming(marker)).toEqual([]);
  });

  it("fails pending and later calls with ToolError when the relay dies mid-call, and the run goes on", async () => {
    const before = started;
    let socketPath = "";
    let killed: number[] = [];
    const result = await executeCode({
      // The first call names the run's socket, which is on the relay's command line; the relay is
      // killed from the host the moment the hanging call is dispatched.
      code: `
import os, threading
from codecall import ToolError, echo, hang
echo(os.environ["CODECALL_RPC_SOCKET"])
errors = []
def call():
    try:
        hang()
    except ToolError as error:
        errors.append(str(error))
worker = threading.Thread(target=call)
worker.start()
worker.join(20)
print("pending:", errors)
try:
    echo("after")
except ToolError as error:
    print("later:", error)
print("script goes on")
`,
      environment,
      transport: createTransport(),
      tools,
      limits: { timeoutMs: 30_000 },
      onToolCall: (event) => {
        if (event.phase !== "start") return;
        if (event.name === "echo") socketPath = (event.arguments as { text: string }).text;
        if (event.name === "hang") {
          void processesNaming(socketPath).then((pids) => {
            killed = pids;
            for (const pid of pids) process.kill(pid, "SIGKILL");
          });
        }
      },
    });
    expect(killed).toHaveLength(1);
    expect(started - before).toBe(1);
    expect(result.status).toBe("success");
    expect(result.output).toMatch(
      /^pending: \['[^']*connection to the codecall host closed; the call was not retried'\]\nlater: .*cannot reach the codecall host.*\nscript goes on\n$/,
    );
  });
});
