import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { defineTool, RpcDispatcher, RpcErrorCode, type TransportSession } from "@codecall/core";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { createTransport, type FileTransportOptions } from "../src/index.js";
import { parsePollOutput } from "../src/poll-script.js";
import { OneshotSpy } from "./support/oneshot-spy.js";

const TOKEN = "t".repeat(64);

describe("file transport session (hand-written request files)", () => {
  let local: LocalEnvironment;
  let spy: OneshotSpy;
  let runDir: string;
  let rpc: string;
  let session: TransportSession;
  let dispatcher: RpcDispatcher;
  const invocations = new Map<string, number>();
  const gates: (() => void)[] = [];

  const tools = [
    defineTool({
      name: "echo",
      description: "Returns its text and counts invocations per text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: ({ text }: { text: string }) => {
        invocations.set(text, (invocations.get(text) ?? 0) + 1);
        return text;
      },
    }),
    defineTool({
      name: "gate",
      description: "Finishes when the test opens the gate.",
      parameters: { type: "object", properties: {} },
      execute: () => new Promise<string>((resolve) => gates.push(() => resolve("opened"))),
    }),
  ];

  const open = async (options: FileTransportOptions = {}, maxFrameBytes = 1 << 20) => {
    dispatcher = new RpcDispatcher({ tools, token: TOKEN, environment: spy, runId: "test", maxToolCalls: 1000 });
    session = await createTransport({ minPollMs: 1, maxPollMs: 5, ...options }).open(spy, {
      runId: "test",
      runDir,
      token: TOKEN,
      dispatcher,
      maxFrameBytes,
      interpreter: "python3",
    });
    rpc = session.guestEnv.CODECALL_RPC_DIR!;
  };
  const frame = (id: string, name: string, args: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  /** Writes a request the way the guest client does: staged, then renamed into requests/. */
  const submit = async (id: string, content: string) => {
    const staged = path.join(rpc, "guest-tmp", `${id}.json`);
    await writeFile(staged, content);
    await rename(staged, path.join(rpc, "requests", `${id}.json`));
  };
  const call = (id: string, name: string, args: Record<string, unknown>) => submit(id, `${TOKEN}\n${frame(id, name, args)}\n`);
  const response = (id: string) =>
    vi.waitFor(async () => JSON.parse(await readFile(path.join(rpc, "responses", `${id}.json`), "utf8")) as Record<string, any>, {
      timeout: 20_000,
      interval: 5,
    });
  const list = (dir: string) => readdir(path.join(rpc, dir));

  beforeEach(async () => {
    local = createEnvironment();
    spy = new OneshotSpy(local);
    runDir = await local.tempDir();
    invocations.clear();
  });

  afterEach(async () => {
    for (const open of gates.splice(0)) open();
    dispatcher.close();
    await session.close();
    await rm(runDir, { recursive: true, force: true });
    await local.close();
  });

  it("answers a request file with the tool's result and leaves no claim behind", async () => {
    await open();
    expect(session.guestEnv).toEqual({ CODECALL_RPC_DIR: `${runDir}/rpc`, CODECALL_RPC_TOKEN: TOKEN });
    await call("r1", "echo", { text: "héllo" });
    expect(await response("r1")).toEqual({ jsonrpc: "2.0", id: "r1", result: "héllo" });
    await vi.waitFor(async () => expect(await list("claimed")).toEqual([]), { timeout: 5_000 });
    expect(await list("requests")).toEqual([]);
  });

  it("answers a wrong token, an empty file and an oversized file with errors, dispatching none", async () => {
    await open({}, 4096);
    await submit("bad-token", `${"x".repeat(64)}\n${frame("bad-token", "echo", { text: "a" })}\n`);
    await submit("empty", "");
    await submit("too-big", `${TOKEN}\n${frame("too-big", "echo", { text: "c".repeat(5000) })}\n`);
    // A hello inside a request cannot change how the next request is treated.
    await submit("hello", `${TOKEN}\n${JSON.stringify({ jsonrpc: "2.0", id: "hello", method: "hello", params: { token: "wrong", protocol: 1 } })}\n`);
    expect((await response("bad-token")).error.code).toBe(RpcErrorCode.Unauthorized);
    expect((await response("empty")).error.code).toBe(RpcErrorCode.InvalidRequest);
    expect((await response("too-big")).error.code).toBe(RpcErrorCode.FrameTooLarge);
    expect((await response("hello")).error.code).toBe(RpcErrorCode.Unauthorized);
    await call("after", "echo", { text: "fine" });
    expect((await response("after")).result).toBe("fine");
    expect(dispatcher.toolCallsMade).toBe(1);
  });

  it("keeps no more of a poll's output than a poll can print, and serves on after polls that printed too much", async () => {
    await open({}, 4096);
    // An environment whose commands a script replaced: the first polls print 8 MB after their output.
    let flooded = 0;
    let largest = 0;
    spy.intercept(async (command, options, run) => {
      const result = flooded < 3 ? (flooded++, await local.executeOneshot(`${command}\nhead -c 8000000 /dev/zero`, options)) : await run();
      largest = Math.max(largest, result.stdout.length);
      return result;
    });
    await vi.waitFor(() => expect(flooded).toBe(3), { timeout: 20_000 });
    await call("after-flood", "echo", { text: "still here" });
    expect((await response("after-flood")).result).toBe("still here");
    expect(largest).toBeLessThan(2 * 1024 * 1024);
  });

  it("never dispatches a request twice, even when poll outputs get lost", async () => {
    await open();
    // Every poll that claims something runs in full but its output never reaches the host (as when
    // a backend connection drops after the command ran): those requests must come back as "old".
    // And one poll in three never runs at all, so acknowledgements and responses must be sent again.
    spy.intercept(async (command, _options, run) => {
      if (spy.calls % 3 === 0) throw new Error("connection refused");
      const result = await run();
      const boundary = /^boundary=(\S+)$/m.exec(command)?.[1];
      const polled = boundary === undefined ? undefined : parsePollOutput(result.stdout, boundary);
      return polled?.some((request) => request.fresh) ? { ...result, stdout: "" } : result;
    });
    const ids = Array.from({ length: 30 }, (_, index) => `lost-${index}`);
    await Promise.all(ids.map((id) => call(id, "echo", { text: id })));
    for (const id of ids) expect((await response(id)).result).toBe(id);
    expect([...invocations.entries()].sort()).toEqual(ids.map((id) => [id, 1]).sort());
  });

  it("keeps serving while a slow tool runs, and answers it when it finishes", async () => {
    await open();
    await call("slow", "gate", {});
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 5_000 });
    await call("quick", "echo", { text: "not held up" });
    expect((await response("quick")).result).toBe("not held up");
    gates.shift()!();
    expect((await response("slow")).result).toBe("opened");
  });

  it("holds at most 32 calls at once however many requests wait, and answers them all", async () => {
    // Each held call's result lives in host memory until a poll writes it: a flood of requests
    // must wait as files in the environment instead.
    await open();
    let polls = 0;
    spy.intercept((_command, _options, run) => {
      polls += 1;
      return run();
    });
    for (let i = 0; i < 100; i++) await call(`g${i}`, "gate", {});
    await vi.waitFor(() => expect(gates.length).toBeGreaterThanOrEqual(32), { timeout: 20_000 });
    const seen = polls;
    await vi.waitFor(() => expect(polls).toBeGreaterThan(seen + 3), { timeout: 20_000 });
    expect(gates).toHaveLength(32);
    expect(await list("requests")).toHaveLength(68);
    for (let answered = 0; answered < 100;) {
      await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0), { timeout: 20_000 });
      answered += gates.length;
      for (const open of gates.splice(0)) open();
    }
    for (let i = 0; i < 100; i++) expect((await response(`g${i}`)).result).toBe("opened");
  }, 60_000);

  it("answers a second request under an id still in flight with its own error", async () => {
    await open();
    await call("twice", "gate", {});
    await vi.waitFor(
      async () => {
        expect(gates).toHaveLength(1);
        expect(await list("claimed")).toEqual([]);
      },
      { timeout: 5_000 },
    );
    await call("twice", "echo", { text: "again" });
    expect((await response("twice")).error.message).toMatch(/already in use/);
    expect(invocations.size).toBe(0);
    // Once the first one is answered, the id is free again.
    gates.shift()!();
    await vi.waitFor(async () => expect((await response("twice")).result).toBe("opened"), { timeout: 5_000 });
    await rm(path.join(rpc, "responses", "twice.json"));
    await call("twice", "echo", { text: "reused" });
    expect((await response("twice")).result).toBe("reused");
  });

  it("closes with one last poll that leaves the closed marker, and polls no more", async () => {
    await open();
    await call("c1", "echo", { text: "x" });
    await response("c1");
    await session.close();
    const after = spy.calls;
    expect((await stat(path.join(rpc, "closed"))).isFile()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await session.close();
    expect(spy.calls).toBe(after);
  });

  it("stops polling by itself once the run dir is gone", async () => {
    await open();
    await rm(runDir, { recursive: true, force: true });
    // Polls stop with the first one that finds no dir; the count then stays put.
    await vi.waitFor(
      async () => {
        const before = spy.calls;
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(spy.calls).toBe(before);
      },
      { timeout: 5_000 },
    );
    const stopped = spy.calls;
    await session.close();
    expect(spy.calls).toBe(stopped);
    await expect(stat(runDir)).rejects.toThrow();
  });

  it("closes within its timeout when the environment no longer answers", async () => {
    await open({ closeTimeoutMs: 100 });
    const aborted: boolean[] = [];
    spy.intercept(
      (_command, options) =>
        new Promise((_, reject) => options?.signal?.addEventListener("abort", () => (aborted.push(true), reject(new Error("aborted"))))),
    );
    const before = spy.calls;
    await vi.waitFor(() => expect(spy.calls).toBe(before + 1), { timeout: 5_000 });
    await session.close();
    // The poll that hung was aborted, and close did not start another one.
    expect(aborted).toHaveLength(1);
  });
});
