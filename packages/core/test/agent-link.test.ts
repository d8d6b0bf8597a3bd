// The host end of the environment agent against a hand-driven channel: the test writes the agent's
// frames and reads the host's, so framing, garbage, flow control and loss can be staged exactly.
// (The agent itself is tested in agent-python/, and both together in the backends' suites.)
import { describe, expect, it } from "vitest";
import {
  AgentFrameDecoder,
  AgentProtocolError,
  CHUNK_BYTES,
  encodeCredit,
  encodeFrame,
  encodeJsonFrame,
  FrameKind,
  readCredit,
  WINDOW_BYTES,
  type AgentFrame,
} from "../src/agent/agent-frames.js";
import { AgentLink, AgentLostError, AgentRequestError, AgentStartError } from "../src/agent/agent-link.js";
import type { AgentWatchOptions } from "../src/agent/agent-watchdog.js";
import type { ProcessExit } from "../src/environment.js";
import type { ExecChannel } from "../src/remote/remote-executor.js";

const encoder = new TextEncoder();
const MAGIC = encoder.encode("codecall-agent/1\n");
const HELLO = { protocol: 1, pid: 42, python: "3.8.0", subreaper: true, window: WINDOW_BYTES, chunk: CHUNK_BYTES, env: { PATH: "/bin" } };

/** An exec channel whose other end is the test: it plays the agent. */
class StagedAgent {
  readonly channel: ExecChannel;
  readonly #stdout: WritableStreamDefaultWriter<Uint8Array>;
  /** The host's frames, decoded (its boot bytes skipped). */
  readonly received: AgentFrame[] = [];
  #exit!: (exit: ProcessExit) => void;
  #waiters: (() => void)[] = [];
  closed = false;

  constructor() {
    const out = new TransformStream<Uint8Array, Uint8Array>();
    this.#stdout = out.writable.getWriter();
    const host = new HostFrames();
    const exit = new Promise<ProcessExit>((resolve) => (this.#exit = resolve));
    this.channel = {
      stdin: new WritableStream({
        write: (chunk) => {
          this.received.push(...host.push(chunk));
          for (const wake of this.#waiters.splice(0)) wake();
        },
      }),
      stdout: out.readable,
      stderr: new ReadableStream({ start: (controller) => controller.close() }),
      exit,
      close: () => void (this.closed = true),
    };
  }

  send(...chunks: Uint8Array[]): Promise<void> {
    return Promise.all(chunks.map((chunk) => this.#stdout.write(chunk))).then(() => {});
  }

  hello(value: object = HELLO): Promise<void> {
    return this.send(MAGIC, encodeJsonFrame(FrameKind.hello, 0, value));
  }

  exit(exit: ProcessExit): void {
    this.#exit(exit);
  }

  /** The next host frame that `match` accepts. */
  async next(match: (frame: AgentFrame) => boolean): Promise<AgentFrame> {
    for (;;) {
      const index = this.received.findIndex(match);
      if (index >= 0) return this.received.splice(index, 1)[0]!;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

/** Decodes what the host writes: the boot (length line + bootstrap, count line, modules) first, then frames. */
class HostFrames {
  #booted = false;
  #buffer = new Uint8Array(0);

  push(chunk: Uint8Array): AgentFrame[] {
    if (!this.#booted) {
      this.#booted = true; // the boot is the host's first write, whole
      return [];
    }
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    const frames: AgentFrame[] = [];
    const view = new DataView(joined.buffer);
    let start = 0;
    while (joined.length - start >= 9) {
      const length = view.getUint32(start + 5);
      if (joined.length - start < 9 + length) break;
      frames.push({
        kind: view.getUint8(start) as FrameKind,
        channel: view.getUint32(start + 1),
        payload: joined.slice(start + 9, start + 9 + length),
      });
      start += 9 + length;
    }
    this.#buffer = joined.slice(start);
    return frames;
  }
}

const json = (frame: AgentFrame) => JSON.parse(new TextDecoder().decode(frame.payload)) as Record<string, unknown>;

async function startedLink(watch?: AgentWatchOptions): Promise<{ agent: StagedAgent; link: AgentLink }> {
  const agent = new StagedAgent();
  const link = new AgentLink(agent.channel, encoder.encode("boot"), watch);
  await agent.hello();
  await link.started(5_000);
  return { agent, link };
}

describe("the agent's frames", () => {
  it("are decoded split at every byte, after whatever a login shell printed first", () => {
    const stream = [
      encoder.encode("Welcome to the host\n"),
      MAGIC,
      encodeJsonFrame(FrameKind.hello, 0, HELLO),
      encodeFrame(FrameKind.data, 3, Uint8Array.from([0, 255, 10, 13])),
      encodeFrame(FrameKind.end, 3),
      encodeCredit(4, 70_000),
    ];
    const bytes = new Uint8Array(stream.reduce((total, part) => total + part.length, 0));
    let offset = 0;
    for (const part of stream) {
      bytes.set(part, offset);
      offset += part.length;
    }
    const decoder = new AgentFrameDecoder();
    const frames: AgentFrame[] = [];
    for (let index = 0; index < bytes.length; index += 1) frames.push(...decoder.push(bytes.subarray(index, index + 1)));
    expect(frames.map((frame) => [frame.kind, frame.channel])).toEqual([
      [FrameKind.hello, 0],
      [FrameKind.data, 3],
      [FrameKind.end, 3],
      [FrameKind.credit, 4],
    ]);
    expect(Array.from(frames[1]!.payload)).toEqual([0, 255, 10, 13]);
    expect(readCredit(frames[3]!.payload)).toBe(70_000);
  });

  it("refuse garbage: an unknown kind, an oversized frame, a flood before the first line", () => {
    const started = () => {
      const decoder = new AgentFrameDecoder();
      decoder.push(MAGIC);
      return decoder;
    };
    expect(() => started().push(Uint8Array.from([0xff, 0, 0, 0, 0, 0, 0, 0, 0]))).toThrow(AgentProtocolError);
    expect(() => started().push(encodeFrame(FrameKind.data, 1, new Uint8Array(CHUNK_BYTES + 1)))).toThrow(/at most 65536/);
    expect(() => started().push(encodeFrame(FrameKind.request, 1, new Uint8Array(1)))).toThrow(/unknown kind 2/);
    expect(() => new AgentFrameDecoder().push(new Uint8Array(10_000).fill(0x41))).toThrow(/before its first line/);
  });
});

describe("the agent link", () => {
  it("answers a request with its reply, and a refusal with the agent's code", async () => {
    const { agent, link } = await startedLink();
    const first = link.request("mkdtemp", {});
    const second = link.request("remove", { path: "/x" });
    const [one, two] = [await agent.next((frame) => frame.channel === first.id), await agent.next((frame) => frame.channel === second.id)];
    expect([json(one).op, json(two)]).toEqual(["mkdtemp", { path: "/x", op: "remove" }]);
    await agent.send(encodeJsonFrame(FrameKind.reply, second.id, { error: { code: "FAILED", message: "busy" } }));
    await agent.send(encodeJsonFrame(FrameKind.reply, first.id, { ok: { path: "/tmp/x" } }));
    expect(await first.reply).toEqual({ path: "/tmp/x" });
    await expect(second.reply).rejects.toSatisfy((error: unknown) => error instanceof AgentRequestError && error.code === "FAILED");
  });

  it("is lost on garbage: pending requests were sent (they may have run), later ones were not", async () => {
    const { agent, link } = await startedLink();
    const pending = link.request("spawn", { command: "true" });
    await agent.send(encodeJsonFrame(FrameKind.reply, 999, { ok: {} }));
    await expect(pending.reply).rejects.toSatisfy((error: unknown) => error instanceof AgentLostError && error.sent);
    expect(await link.ended).toBe("the agent sent garbage (the agent answered request 999, which is not waiting)");
    await expect(link.request("remove", { path: "/x" }).reply).rejects.toSatisfy((error: unknown) => error instanceof AgentLostError && !error.sent);
  });

  it("says why it never started: an exit, a wrong protocol", async () => {
    const exited = new StagedAgent();
    const link = new AgentLink(exited.channel, encoder.encode("boot"));
    exited.exit({ exitCode: 127 });
    await expect(link.started(5_000)).rejects.toSatisfy(
      (error: unknown) => error instanceof AgentStartError && error.exit?.exitCode === 127 && /exited with code 127/.test(error.message),
    );
    const other = new StagedAgent();
    const wrong = new AgentLink(other.channel, encoder.encode("boot"));
    await other.hello({ ...HELLO, protocol: 2 });
    await expect(wrong.started(5_000)).rejects.toThrow(/speaks protocol 2, not 1/);
  });

  it("returns credit as the consumer reads, and is lost when the agent overruns a stream's window", async () => {
    const { agent, link } = await startedLink();
    const inbound = link.inbound();
    await agent.send(encodeFrame(FrameKind.data, inbound.id, new Uint8Array(1000)));
    const reader = inbound.readable.getReader();
    expect((await reader.read()).value?.length).toBe(1000);
    expect(readCredit((await agent.next((frame) => frame.kind === FrameKind.credit)).payload)).toBe(1000);
    // Nobody reads now: a window's worth is held, one byte more is garbage.
    for (let sent = 0; sent < WINDOW_BYTES; sent += CHUNK_BYTES)
      await agent.send(encodeFrame(FrameKind.data, inbound.id, new Uint8Array(CHUNK_BYTES)));
    await agent.send(encodeFrame(FrameKind.data, inbound.id, new Uint8Array(1)));
    expect(await link.ended).toBe(`the agent sent garbage (the agent overran the window of stream ${inbound.id})`);
  });

  it("sends a stream no further ahead than the agent's credit", async () => {
    const { agent, link } = await startedLink();
    const outbound = link.outbound();
    const writer = outbound.writable.getWriter();
    const written = writer.write(new Uint8Array(WINDOW_BYTES + 1000));
    const sent = () => agent.received.filter((frame) => frame.kind === FrameKind.data).reduce((total, frame) => total + frame.payload.length, 0);
    for (let attempt = 0; attempt < 200 && sent() < WINDOW_BYTES; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // A window's worth went out; the rest waits for credit however long the host runs on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent()).toBe(WINDOW_BYTES);
    await agent.send(encodeCredit(outbound.id, 1000));
    await written;
    expect(sent()).toBe(WINDOW_BYTES + 1000);
  });
});

// Every wait on the agent ends when it says so; these stage an agent that stops saying anything
// (frozen, or its channel open but carrying nothing) and one that is only slow.
describe("an agent that stops answering", () => {
  const isPing = (frame: AgentFrame) => frame.kind === FrameKind.request && json(frame).op === "ping";

  it("is pinged once it is silent while the host waits, and given up when the ping goes unanswered: what waited fails", async () => {
    const { agent, link } = await startedLink({ silenceMs: 40, answerMs: 80 });
    const spawn = link.request("spawn", { command: "true" });
    const inbound = link.inbound();
    const read = inbound.readable.getReader().read();
    await agent.next(isPing);
    await expect(spawn.reply).rejects.toSatisfy((error: unknown) => error instanceof AgentLostError && error.sent);
    await expect(read).rejects.toBeInstanceOf(AgentLostError);
    expect(await link.ended).toBe(
      "the agent stopped answering: nothing came from it for 40 ms while the host waited on it, nor for 80 ms after a ping",
    );
  });

  it("keeps an agent that answers its pings, however long the host waits on it", async () => {
    const { agent, link } = await startedLink({ silenceMs: 20, answerMs: 10_000 });
    const spawn = link.request("spawn", { command: "sleep 1" });
    const spawnId = spawn.id;
    for (let pings = 0; pings < 5; pings += 1) {
      const ping = await agent.next(isPing);
      await agent.send(encodeJsonFrame(FrameKind.reply, ping.channel, { ok: {} }));
    }
    await agent.send(encodeJsonFrame(FrameKind.reply, spawnId, { ok: { pid: 7 } }));
    expect(await spawn.reply).toEqual({ pid: 7 });
    expect(link.lostBecause).toBeUndefined();
  });

  it("is not pinged while nothing waits on it", async () => {
    const { agent, link } = await startedLink({ silenceMs: 5, answerMs: 10 });
    const answered = link.request("mkdtemp", {});
    await agent.send(encodeJsonFrame(FrameKind.reply, (await agent.next((frame) => frame.channel === answered.id)).channel, { ok: { path: "/t" } }));
    await answered.reply;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(agent.received.filter(isPing)).toEqual([]);
    expect(link.lostBecause).toBeUndefined();
  });

  it("is not pinged after a refused request that had a handler for its events (a spawn in a missing directory)", async () => {
    const { agent, link } = await startedLink({ silenceMs: 5, answerMs: 10 });
    const refused = link.request("spawn", { command: "true", cwd: "/missing" }, { event: () => {}, lost: () => {} });
    const sent = await agent.next((frame) => frame.channel === refused.id);
    await agent.send(encodeJsonFrame(FrameKind.reply, sent.channel, { error: { code: "INVALID_PATH", message: "no /missing" } }));
    await expect(refused.reply).rejects.toBeInstanceOf(AgentRequestError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(agent.received.filter(isPing)).toEqual([]);
    expect(link.lostBecause).toBeUndefined();
  });
});
