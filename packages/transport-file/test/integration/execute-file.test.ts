import { readdir, stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, executeCode, type ExecuteCodeOptions } from "@codecall/core";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { describeExecution } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "../../src/index.js";
import { parsePollOutput } from "../../src/poll-script.js";
import { OneshotSpy } from "../support/oneshot-spy.js";

describeExecution({
  name: "local + file",
  createEnvironment: ({ env }) => createEnvironment({ env: { ...process.env, ...env } }),
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "file",
});

describe("file transport end to end on local", () => {
  let local: LocalEnvironment;
  const echo = defineTool({
    name: "echo",
    description: "Returns its text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => text,
  });
  const hang = defineTool({
    name: "hang",
    description: "Never finishes on its own.",
    parameters: { type: "object", properties: {} },
    execute: (_args: Record<string, never>, context) =>
      new Promise((_, reject) => context.signal.addEventListener("abort", () => reject(new Error("cancelled")))),
  });
  const run = (environment: OneshotSpy | LocalEnvironment, code: string, extra: Partial<ExecuteCodeOptions> = {}) =>
    executeCode({ code, environment, transport: createTransport(), tools: [echo, hang], limits: { maxToolCalls: 200 }, ...extra });
  const exists = (file: string) =>
    stat(file).then(
      () => true,
      () => false,
    );

  beforeAll(() => {
    local = createEnvironment();
  });

  afterAll(async () => {
    await local.close();
  });

  it("collects every waiting request in one poll", async () => {
    const spy = new OneshotSpy(local);
    let rpcDir: string | undefined;
    let released = false;
    const perPoll: number[] = [];
    spy.intercept(async (command, options, perform) => {
      rpcDir ??= /^rpc='?([^'\n]+)'?$/m.exec(command)?.[1];
      // Hold the first poll that finds requests until all 20 threads have written theirs.
      while (!released && rpcDir && (await readdir(`${rpcDir}/requests`).catch(() => [])).length < 20) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      released ||= rpcDir !== undefined;
      const result = await perform();
      const boundary = /^boundary=(\S+)$/m.exec(command)?.[1];
      if (boundary) perPoll.push(parsePollOutput(result.stdout, boundary)?.length ?? 0);
      return result;
    });
    const result = await run(
      spy,
      `
import threading
from codecall import echo
out = {}
threads = [threading.Thread(target=lambda i=i: out.__setitem__(i, echo(str(i)))) for i in range(20)]
for t in threads: t.start()
for t in threads: t.join()
print(all(out[i] == str(i) for i in range(20)))
`,
    );
    expect(result.output).toBe("True\n");
    expect(Math.max(...perPoll)).toBe(20);
  }, 60_000);

  it("serves two forked processes with five threads each, all at once", async () => {
    const result = await run(
      local,
      `
import multiprocessing, threading
from codecall import echo
def threads(tag):
    out = []
    workers = [threading.Thread(target=lambda i=i: out.extend(echo(f"{tag}-{i}-{n}") for n in range(3))) for i in range(5)]
    for w in workers: w.start()
    for w in workers: w.join()
    return sorted(out)
with multiprocessing.get_context("fork").Pool(2) as pool:
    a, b = pool.map(threads, ["a", "b"])
expected = lambda tag: sorted(f"{tag}-{i}-{n}" for i in range(5) for n in range(3))
print(a == expected("a"), b == expected("b"))
`,
    );
    expect(result.output).toBe("True True\n");
    expect(result.toolCallsMade).toBe(30);
  }, 60_000);

  it("never dispatches request files with bad names, nor answers outside responses/", async () => {
    const result = await run(
      local,
      `
import json, os, time
from codecall import echo
rpc = os.environ["CODECALL_RPC_DIR"]
token = os.environ["CODECALL_RPC_TOKEN"]
def put(name):
    staged = os.path.join(rpc, "guest-tmp", "staged")
    frame = json.dumps({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": name}}})
    with open(staged, "w") as handle:
        handle.write(token + "\\n" + frame + "\\n")
    os.rename(staged, os.path.join(rpc, "requests", name))
for name in ["../escape.json", "a" * 129 + ".json", "semi;colon.json", "dot.dot.json", "x.json.tmp", "-"]:
    put(name)
for _ in range(3000):  # only a broken host gets near this bound
    if not os.listdir(os.path.join(rpc, "requests")):
        break
    time.sleep(0.01)
print(echo("good"))
print(sorted(os.listdir(rpc)), os.listdir(os.path.join(rpc, "responses")))
print(sorted(os.listdir(os.path.dirname(rpc))))
`,
    );
    expect(result.output).toBe(
      "good\n['claimed', 'escape.json', 'guest-tmp', 'host-tmp', 'requests', 'responses'] []\n" +
        "['_codecall_calls.py', '_codecall_client.py', '_codecall_protocol.py', 'codecall.py', 'rpc', 'run.zip', 'script.py', 'sitecustomize.py']\n",
    );
    expect(result.toolCallsMade).toBe(1);
  }, 60_000);

  it("answers a request file the guest writes in place, read before it was whole, with an error that says how to write one", async () => {
    const result = await run(
      local,
      `
import json, os, time
rpc = os.environ["CODECALL_RPC_DIR"]
token = os.environ["CODECALL_RPC_TOKEN"]
frame = json.dumps({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}})
# Each file stops partway (inside the token, inside the frame, before the frame) until the host has claimed it.
for name, part in [("in-token", token[:10]), ("in-frame", token + "\\n" + frame[:25]), ("no-frame", token + "\\n")]:
    path = os.path.join(rpc, "requests", name + ".json")
    with open(path, "w") as handle:
        handle.write(part)
        handle.flush()
        for _ in range(3000):  # only a broken host gets near this bound
            if not os.path.exists(path):
                break
            time.sleep(0.01)
    answer = os.path.join(rpc, "responses", name + ".json")
    for _ in range(3000):
        if os.path.exists(answer):
            break
        time.sleep(0.01)
    error = json.load(open(answer))["error"]
    print(name, error["code"], error["message"])
`,
    );
    const lines = result.output.trim().split("\n");
    expect(lines).toHaveLength(3);
    // A frame cut short is JSON that does not parse: the protocol's Parse error, with the same words.
    const expected = [
      ["in-token", "-32600 Invalid request"],
      ["in-frame", "-32700 Parse error"],
      ["no-frame", "-32600 Invalid request"],
    ];
    for (const [index, [name, error]] of expected.entries()) {
      expect(lines[index]).toMatch(
        new RegExp(
          `^${name} ${error}: request file ${name}\\.json is not a whole request \\(.+\\); write each request in guest-tmp/ and rename it into requests/`,
        ),
      );
    }
  }, 60_000);

  for (const ending of ["timeout", "abort"] as const) {
    it(`removes the RPC dir and stops polling after a run ends by ${ending}`, async () => {
      const spy = new OneshotSpy(local);
      const controller = new AbortController();
      const result = await run(spy, 'import os\nprint(os.environ["CODECALL_RPC_DIR"], flush=True)\nfrom codecall import hang\nhang()', {
        ...(ending === "timeout" ? { limits: { timeoutMs: 1_500, killGraceMs: 500 } } : { signal: controller.signal }),
        onToolCall: (event) => {
          if (ending === "abort" && event.phase === "start") controller.abort("stop");
        },
      });
      expect(result.status).toBe(ending === "timeout" ? "timeout" : "interrupted");
      const rpcDir = result.output.split("\n")[0]!;
      expect(rpcDir).toMatch(/\/rpc$/);
      expect(await exists(rpcDir)).toBe(false);
      const after = spy.calls;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(spy.calls).toBe(after);
    }, 60_000);
  }
});
