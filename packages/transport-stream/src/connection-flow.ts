/**
 * The host end of one guest connection that the environment hands over as byte streams (a socket
 * its agent listens on, see `Environment.listenUnix`): its own dispatcher connection and call
 * flow, exactly as a relayed connection or a uds socket gets. Flow control comes from the streams:
 * requests are read only while every call in them has started, and answers count as pending until
 * the environment has room for them, so a guest that stops reading holds back only itself.
 */
import type { RunContext, SocketConnection } from "@codecall/core";
import { CallFlow } from "@codecall/core/protocol";

const encoder = new TextEncoder();

export class ConnectionFlow {
  readonly #flow: CallFlow;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Answer bytes written that the environment has not taken yet. */
  #pending = 0;
  #resume: (() => void) | undefined;
  #closed = false;
  /** Settles once the guest's side has ended (or failed) and the flow is closed. */
  readonly done: Promise<void>;

  constructor(connection: SocketConnection, run: RunContext) {
    this.#writer = connection.writable.getWriter();
    this.#reader = connection.readable.getReader();
    this.#flow = new CallFlow({
      rpc: run.dispatcher.createConnection(),
      maxFrameBytes: run.maxFrameBytes,
      send: (answer) => this.#send(answer),
      pendingBytes: () => this.#pending,
      onWantsInput: () => this.#resume?.(),
      // Called from the flow's constructor (a connection over the run's limit): the streams only.
      end: () => this.#endStreams(),
    });
    this.done = this.#read();
  }

  /** Ends the connection: its queued calls are dropped, the guest's side is closed. */
  close(): void {
    if (this.#closed) return;
    this.#flow.close();
    this.#endStreams();
  }

  #endStreams(): void {
    this.#closed = true;
    this.#resume?.();
    this.#reader.cancel().catch(() => {});
    this.#writer.close().catch(() => {});
  }

  #send(answer: string): void {
    if (this.#closed) return;
    const bytes = encoder.encode(answer);
    this.#pending += bytes.length;
    this.#writer.write(bytes).then(
      () => {
        this.#pending -= bytes.length;
        this.#flow.pump();
      },
      // The guest is gone; its end of the stream says so.
      () => {},
    );
  }

  async #read(): Promise<void> {
    try {
      while (!this.#closed) {
        if (!this.#flow.wantsInput) {
          await new Promise<void>((resolve) => (this.#resume = resolve));
          this.#resume = undefined;
          continue;
        }
        const { done, value } = await this.#reader.read();
        if (done) break;
        this.#flow.push(value);
      }
    } catch {
      // The connection failed (the agent was lost): it ends like a closed one.
    } finally {
      this.close();
    }
  }
}
