/**
 * The host end of one run's relay: reads the relay's frames, gives every guest connection its own
 * dispatcher connection and call flow (exactly what the uds transport does per socket), and
 * writes the answers back through the relay's stdin.
 *
 * Flow control is per connection, through the relay's acks: the host acks a connection's request
 * bytes once every call they hold has started (so the relay forwards a bounded window of them),
 * and the relay acks answer bytes once the guest has taken them (so the host starts no more of
 * that connection's calls while its answers pile up). A guest that does not read holds back only
 * itself, and the host's memory stays bounded.
 */
import type { EnvironmentProcess, ProcessExit, RunContext } from "@codecall/core";
import { delay, StreamTail } from "@codecall/core/plugin-kit";
import { CallFlow } from "@codecall/core/protocol";
import { encodeRelayAck, encodeRelayBoot, encodeRelayFrame, RelayFrameDecoder, RelayProtocolError } from "./relay-frames.js";

const encoder = new TextEncoder();

/** The relay did not come up; `exit` is set when it exited (rather than hanging or babbling). */
export class RelayStartError extends Error {
  readonly exit: ProcessExit | undefined;
  readonly stderr: string;

  constructor(why: string, exit: ProcessExit | undefined, stderr: string) {
    super(stderr ? `${why}: ${stderr}` : why);
    this.name = "RelayStartError";
    this.exit = exit;
    this.stderr = stderr;
  }
}

/** One guest connection, as the host sees it through the relay. */
interface GuestConnection {
  flow: CallFlow;
  /** Request bytes received and not yet acked to the relay. */
  unackedRequests: number;
  /** Answer bytes sent to the relay that the guest has not taken yet. */
  unackedAnswers: number;
}

export class RelayLink {
  readonly #process: EnvironmentProcess;
  readonly #run: RunContext;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #connections = new Map<number, GuestConnection>();
  readonly #greeted: Promise<void>;
  #greet!: () => void;
  readonly #stderr: StreamTail;
  #exit: ProcessExit | undefined;
  /** Set when the backend lost the relay (its `wait()` rejected) instead of seeing it exit. */
  #lost: Error | undefined;
  /** Settles when the relay is gone, however it went; never rejects. */
  readonly #ended: Promise<void>;
  #broken: Error | undefined;
  #closing: Promise<void> | undefined;

  /** `relaySource` goes first on the relay's stdin, as its bootstrap expects: length line, then source. */
  constructor(process: EnvironmentProcess, run: RunContext, relaySource: string) {
    this.#process = process;
    this.#run = run;
    this.#writer = process.stdin.getWriter();
    const source = new TextEncoder().encode(relaySource);
    this.#writer.write(encodeRelayBoot(source)).catch(() => {});
    this.#greeted = new Promise((resolve) => (this.#greet = resolve));
    void this.#readFrames();
    this.#stderr = new StreamTail(process.stderr);
    this.#ended = process.wait().then(
      (exit) => void (this.#exit = exit),
      (error: unknown) => void (this.#lost = error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * Resolves once the relay listens. Rejects, with what the relay printed, when it exits, breaks
   * the framing or stays silent for `timeoutMs`.
   */
  async ready(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      this.#greeted.then(() => "ready" as const),
      this.#ended.then(() => "exited" as const),
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (outcome === "ready" && this.#broken === undefined) return;
    // Let the last stderr bytes of a relay that just died arrive.
    if (outcome === "exited") await delay(50);
    // The most specific cause first: a lost relay also breaks its streams.
    const why = this.#lost
      ? `the relay was lost before it was ready (${this.#lost.message})`
      : (this.#broken?.message ??
        (outcome === "timeout"
          ? `the relay did not start within ${timeoutMs} ms`
          : `the relay exited with code ${this.#exit?.exitCode ?? "?"} before it was ready`));
    throw new RelayStartError(why, this.#exit, this.#stderr.text);
  }

  /** Ends the relay: EOF on its stdin (it removes its socket and exits), then a kill if it lingers. */
  close(graceMs: number): Promise<void> {
    this.#closing ??= (async () => {
      for (const connection of this.#connections.values()) connection.flow.close();
      this.#connections.clear();
      // EOF on its stdin ends the relay; its exit is what is waited for. (The writer's close of a
      // relay that has died may never settle: Node does not finish a destroyed child's stdin.)
      void this.#writer.close().catch(() => {});
      const stopped = this.#ended;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([
        stopped.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (!exited) await this.#process.kill().catch(() => {});
    })();
    return this.#closing;
  }

  async #readFrames(): Promise<void> {
    const decoder = new RelayFrameDecoder();
    const reader = this.#process.stdout.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        for (const event of decoder.push(value)) {
          if (event.kind === "greeting") this.#greet();
          else if (event.kind === "closed") this.#forget(event.connection);
          else if (event.kind === "ack") this.#delivered(event.connection, event.bytes);
          else this.#receive(event.connection, event.data);
        }
        // The relay reads its stdin whatever its guests do; a relay that falls behind holds up
        // the reading of its frames until it catches up.
        await this.#writer.ready;
      }
    } catch (error) {
      if (this.#closing) return;
      this.#broken = error instanceof RelayProtocolError ? error : new Error(`the link to the relay failed: ${String(error)}`);
      // The framing is lost: no later byte can be trusted, so the relay goes (and with it every
      // guest connection, whose pending calls then fail with ToolError instead of hanging).
      await this.#process.kill().catch(() => {});
    } finally {
      reader.releaseLock();
    }
  }

  #receive(id: number, data: Uint8Array): void {
    let connection = this.#connections.get(id);
    if (connection === undefined) {
      connection = this.#open(id);
      this.#connections.set(id, connection);
    }
    connection.unackedRequests += data.length;
    connection.flow.push(data);
    if (connection.flow.wantsInput) this.#ackRequests(id, connection);
  }

  #open(id: number): GuestConnection {
    // The flow is set after the counts: it may answer (and end the connection) from its constructor.
    const connection = { unackedRequests: 0, unackedAnswers: 0 } as GuestConnection;
    connection.flow = new CallFlow({
      rpc: this.#run.dispatcher.createConnection(),
      maxFrameBytes: this.#run.maxFrameBytes,
      send: (answer) => {
        const payload = encoder.encode(answer);
        connection.unackedAnswers += payload.length;
        this.#write(encodeRelayFrame(id, payload));
      },
      pendingBytes: () => connection.unackedAnswers,
      onWantsInput: () => this.#ackRequests(id, connection),
      // The relay closes the guest's socket once the answer is out, and reports it closed.
      end: () => this.#write(encodeRelayFrame(id, new Uint8Array(0))),
    });
    return connection;
  }

  /** The relay forwards more of this connection's requests once the host has taken these. */
  #ackRequests(id: number, connection: GuestConnection): void {
    if (connection.unackedRequests === 0 || this.#connections.get(id) !== connection) return;
    this.#write(encodeRelayAck(id, connection.unackedRequests));
    connection.unackedRequests = 0;
  }

  /** The guest took `bytes` of its answers: more of its calls may start. */
  #delivered(id: number, bytes: number): void {
    const connection = this.#connections.get(id);
    if (connection === undefined) return;
    connection.unackedAnswers = Math.max(0, connection.unackedAnswers - bytes);
    connection.flow.pump();
  }

  #forget(id: number): void {
    this.#connections.get(id)?.flow.close();
    this.#connections.delete(id);
  }

  #write(frame: Uint8Array): void {
    if (this.#closing || this.#exit || this.#lost) return;
    // A failed write means the relay is gone; its exit is what the guest and the run notice.
    this.#writer.write(frame).catch(() => {});
  }
}
