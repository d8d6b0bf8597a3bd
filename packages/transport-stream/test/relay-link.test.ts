// The host end of the relay against a hand-driven process: the relay's stdout is written by the
// test, its stdin read by it, so routing, garbage, silence and exits can be staged exactly.
import { describe, expect, it, vi } from "vitest";
import { defineTool, type EnvironmentProcess, type ProcessExit, type RunContext } from "@codecall/core";
import {
  DEFAULT_MAX_PENDING_ANSWER_BYTES,
  DEFAULT_MAX_RUNNING_CALLS,
  RpcDispatcher,
  RpcErrorCode,
  type RpcFailure,
  type RpcResponse,
  type RpcSuccess,
} from "@codecall/core/protocol";
import { createEnvironment } from "@codecall/backend-local";
import { encodeRelayAck, encodeRelayFrame, RELAY_GREETING, RelayFrameDecoder, type RelayEvent } from "../src/index.js";
import { RelayLink } from "../src/relay-link.js";

const TOKEN = "t".repeat(64);
const RELAY_SOURCE = "print('the relay')\n";
const encoder = new TextEncoder();

/** A process whose stdio the test drives. */
class StagedProcess implements EnvironmentProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly #stdout: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stderr: WritableStreamDefaultWriter<Uint8Array>;
  readonly #exited: Promise<ProcessExit>;
  #exit!: (exit: ProcessExit) => void;
  #lose!: (error: Error) => void;
  /** What the host wrote to the relay, decoded (the host's frames use the relay's own framing), acks aside. */
  readonly received: RelayEvent[] = [];
  /** Request bytes the host acked, per connection. */
  readonly acked = new Map<number, number>();
  /** The relay source the host sent ahead of its frames. */
  bootSource: string | undefined;
  stdinClosed = false;
  kills = 0;
  #onReceive: (() => void) | undefined;

  /** `stdinCloseHangs`: closing its stdin never settles, as Node's end() of a dead child's stdin. */
  constructor({ stdinCloseHangs = false } = {}) {
    const out = new TransformStream<Uint8Array, Uint8Array>();
    const err = new TransformStream<Uint8Array, Uint8Array>();
    this.stdout = out.readable;
    this.stderr = err.readable;
    this.#stdout = out.writable.getWriter();
    this.#stderr = err.writable.getWriter();
    this.#exited = new Promise((resolve, reject) => {
      this.#exit = resolve;
      this.#lose = reject;
    });
    const decoder = new RelayFrameDecoder();
    decoder.push(encoder.encode(`${RELAY_GREETING}\n`));
    this.stdin = new WritableStream({
      write: (chunk) => {
        if (this.bootSource === undefined) {
          // The boot comes first, in one write: "<length>\n" then the source.
          const text = new TextDecoder().decode(chunk);
          const [length, ...rest] = text.split("\n");
          this.bootSource = rest.join("\n");
          if (Number(length) !== encoder.encode(this.bootSource).length) throw new Error(`bad boot: ${text.slice(0, 40)}`);
          return;
        }
        for (const event of decoder.push(chunk)) {
          if (event.kind === "ack") this.acked.set(event.connection, (this.acked.get(event.connection) ?? 0) + event.bytes);
          else this.received.push(event);
        }
        this.#onReceive?.();
      },
      close: () => {
        this.stdinClosed = true;
        if (stdinCloseHangs) return new Promise<void>(() => {});
      },
    });
  }

  say(data: Uint8Array | string): Promise<void> {
    return this.#stdout.write(typeof data === "string" ? encoder.encode(data) : data);
  }

  complain(text: string): Promise<void> {
    return this.#stderr.write(encoder.encode(text));
  }

  exit(exitCode: number): void {
    void this.#stdout.close().catch(() => {});
    void this.#stderr.close().catch(() => {});
    this.#exit({ exitCode });
  }

  /** The backend loses the process (a dropped connection, a vanished container): `wait()` rejects. */
  lose(message: string): void {
    void this.#stdout.abort(new Error(message)).catch(() => {});
    void this.#stderr.abort(new Error(message)).catch(() => {});
    this.#lose(new Error(message));
  }

  /** Resolves once the host has written `count` events. */
  async answers(count: number): Promise<{ connection: number; message: Partial<RpcSuccess & RpcFailure> }[]> {
    while (this.received.length < count) await new Promise<void>((resolve) => (this.#onReceive = resolve));
    return this.received.map((event) => {
      if (event.kind !== "data") throw new Error(`unexpected ${event.kind}`);
      return { connection: event.connection, message: JSON.parse(new TextDecoder().decode(event.data)) as Partial<RpcSuccess & RpcFailure> };
    });
  }

  wait(): Promise<ProcessExit> {
    return this.#exited;
  }

  async kill(): Promise<void> {
    this.kills += 1;
    this.exit(137);
  }
}

function runContext(maxFrameBytes = 1 << 20): RunContext {
  const blob = defineTool({
    name: "blob",
    description: "Returns 256 KiB (the decoder of the staged relay takes frames of at most 1 MiB).",
    parameters: { type: "object", properties: {} },
    execute: () => "x".repeat(256 * 1024),
  });
  const echo = defineTool({
    name: "echo",
    description: "Returns its text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => text,
  });
  const dispatcher = new RpcDispatcher({ tools: [echo, blob], token: TOKEN, environment: createEnvironment(), runId: "test", maxToolCalls: 100 });
  return { runId: "test", runDir: "/nowhere", token: TOKEN, dispatcher, maxFrameBytes, interpreter: "python3" };
}

const line = (id: number, method: string, params: unknown) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
const hello = (id: number) => line(id, "hello", { token: TOKEN, protocol: 1 });
const call = (id: number, text: string) => line(id, "tools/call", { name: "echo", arguments: { text } });

describe("relay link", () => {
  it("gives every guest connection its own session and routes each answer back to it", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    // Connection 2 skips its hello: refused, while connection 1's calls go through. Frames split mid-line.
    const both = encoder.encode(hello(0) + call(1, "a") + call(2, "b"));
    await relay.say(encodeRelayFrame(1, both.subarray(0, 30)));
    await relay.say(encodeRelayFrame(2, call(9, "sneaky")));
    await relay.say(encodeRelayFrame(1, both.subarray(30)));
    const answers = await relay.answers(4);
    const byConnection = (id: number) => answers.filter((answer) => answer.connection === id).map((answer) => answer.message);
    expect(byConnection(2)).toMatchObject([{ id: 9, error: { code: RpcErrorCode.Unauthorized } }]);
    expect(byConnection(1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 0, result: expect.anything() as unknown }),
        expect.objectContaining({ id: 1, result: "a" }),
        expect.objectContaining({ id: 2, result: "b" }),
      ]),
    );
    relay.exit(0);
    await link.close(1000);
    expect(relay.bootSource).toBe(RELAY_SOURCE);
    expect(relay.stdinClosed).toBe(true);
    expect(relay.kills).toBe(0);
  });

  it("answers a guest frame over the limit with FrameTooLarge, without buffering it whole", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(1000), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    await relay.say(encodeRelayFrame(1, hello(0)));
    const big = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${"x".repeat(5000)}"}}}\n`;
    for (let offset = 0; offset < big.length; offset += 700) await relay.say(encodeRelayFrame(1, big.slice(offset, offset + 700)));
    await relay.say(encodeRelayFrame(1, call(6, "after")));
    const answers = (await relay.answers(3)).map((answer) => answer.message);
    expect(answers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 5, error: expect.objectContaining({ code: RpcErrorCode.FrameTooLarge }) as unknown }),
        expect.objectContaining({ id: 6, result: "after" }),
      ]),
    );
    relay.exit(0);
    await link.close(1000);
  });

  it("kills the relay when its output breaks the framing, and the host goes on", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    await relay.say("not a frame header at all\n");
    await relay.wait();
    expect(relay.kills).toBe(1);
    await link.close(1000);
    expect(relay.kills).toBe(1);
  });

  it("rejects ready with the relay's stderr when it exits first", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.complain("Traceback: something broke\n");
    relay.exit(1);
    await expect(link.ready(5000)).rejects.toThrow("the relay exited with code 1 before it was ready: Traceback: something broke");
  });

  it("rejects ready, without an unhandled rejection, when the backend loses the relay", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    relay.lose("the container vanished");
    await expect(link.ready(5000)).rejects.toThrow(/^the relay was lost before it was ready \(the container vanished\)/);
    await link.close(10);
  });

  it("rejects ready when the relay stays silent", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await expect(link.ready(50)).rejects.toThrow("the relay did not start within 50 ms");
    await link.close(10);
  });

  it("kills a relay that does not exit on EOF within the grace period", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    await link.close(50);
    expect(relay.stdinClosed).toBe(true);
    expect(relay.kills).toBe(1);
  });

  it("closes at once, without a kill, when the relay has died and its stdin can no longer be ended", async () => {
    const relay = new StagedProcess({ stdinCloseHangs: true });
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    relay.exit(137);
    // The grace is far longer than the test's own time limit: only the relay's exit may end close().
    await link.close(600_000);
    expect(relay.kills).toBe(0);
  });

  it("sends a connection's answers only as the relay acks them, without holding up other connections", async () => {
    const relay = new StagedProcess();
    const link = new RelayLink(relay, runContext(), RELAY_SOURCE);
    await relay.say(`${RELAY_GREETING}\n`);
    await link.ready(1000);
    // Connection 1 pipelines 40 calls for 256 KiB each and acks nothing; connection 2 makes one call.
    const flood = hello(0) + Array.from({ length: 40 }, (_, i) => line(i + 1, "tools/call", { name: "blob", arguments: {} })).join("");
    await relay.say(encodeRelayFrame(1, flood));
    await relay.say(encodeRelayFrame(2, hello(0) + call(1, "not held up")));
    await vi.waitFor(() => expect(relay.received.filter((event) => event.kind === "data" && event.connection === 2)).toHaveLength(2), {
      timeout: 10_000,
    });
    const sentTo = (id: number) =>
      relay.received.filter((event): event is Extract<RelayEvent, { kind: "data" }> => event.kind === "data" && event.connection === id);
    // At most the running calls' answers and the unacked window: the rest wait for acks, and
    // connection 1's requests are not acked while they wait, so the relay reads no more of them.
    const unacked = sentTo(1).reduce((total, event) => total + event.data.length, 0);
    expect(unacked).toBeLessThanOrEqual((DEFAULT_MAX_RUNNING_CALLS + 1) * 300 * 1024 + DEFAULT_MAX_PENDING_ANSWER_BYTES);
    expect(sentTo(1).length).toBeLessThan(41);
    expect(relay.acked.get(1)).toBeUndefined();
    expect(relay.acked.get(2)).toBe(encoder.encode(hello(0) + call(1, "not held up")).length);
    // The guest reads: every ack lets more answers through, until all 41 arrived.
    let acked = 0;
    while (sentTo(1).length < 41) {
      const sent = sentTo(1).reduce((total, event) => total + event.data.length, 0);
      if (sent > acked) {
        await relay.say(encodeRelayAck(1, sent - acked));
        acked = sent;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(new Set(sentTo(1).map((event) => (JSON.parse(new TextDecoder().decode(event.data)) as RpcResponse).id)).size).toBe(41);
    expect(relay.acked.get(1)).toBe(encoder.encode(flood).length);
    relay.exit(0);
    await link.close(1000);
  });
});
