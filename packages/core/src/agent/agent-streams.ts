/**
 * One stream of the agent protocol as a Web stream on the host. Inbound (agent to host: a
 * command's stdout, a file being read, a guest connection's requests) is a ReadableStream that
 * returns credit as its consumer takes each chunk, so it never holds more than the window; outbound
 * (host to agent: stdin, a file being written, answers to a guest) is a WritableStream whose writes
 * wait for credit, so a consumer in the environment that stops reading holds back only its writer.
 */
import { AgentProtocolError, CHUNK_BYTES, encodeCredit, encodeFrame, FrameKind, WINDOW_BYTES } from "./agent-frames.js";

/** What a stream needs of its link. */
export interface StreamLink {
  send(frame: Uint8Array): void;
  /** Settles when the backend's channel takes more (its own backpressure). */
  drained(): Promise<void>;
  /** The stream is done: frames for it are dropped from now on. */
  forget(id: number): void;
}

/** Agent to host. */
export class InboundStream {
  readonly id: number;
  readonly readable: ReadableStream<Uint8Array>;
  readonly #link: StreamLink;
  readonly #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  #ended = false;
  #cancelled = false;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(id: number, link: StreamLink) {
    this.id = id;
    this.#link = link;
    this.readable = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.#pull(controller),
        cancel: () => this.#cancel(),
      },
      { highWaterMark: 0 },
    );
  }

  /** Bytes from the agent; throws when it sends more than the window allows. */
  push(data: Uint8Array): void {
    if (this.#ended || this.#cancelled) return;
    if (this.#queuedBytes + data.length > WINDOW_BYTES) throw new AgentProtocolError(`the agent overran the window of stream ${this.id}`);
    this.#queue.push(data);
    this.#queuedBytes += data.length;
    this.#wake?.();
  }

  /** The agent's END: the consumer reads what is queued, then the end. */
  end(): void {
    this.#ended = true;
    this.#link.forget(this.id);
    this.#wake?.();
  }

  /** The link is gone: the consumer's next read rejects with `error` (after what is queued). */
  fail(error: Error): void {
    this.#failure ??= error;
    this.#wake?.();
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.#queue.length === 0 && !this.#ended && !this.#failure && !this.#cancelled) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      this.#queuedBytes -= chunk.length;
      controller.enqueue(chunk);
      this.#link.send(encodeCredit(this.id, chunk.length));
      return;
    }
    if (this.#cancelled) return;
    if (this.#ended) controller.close();
    else controller.error(this.#failure);
  }

  #cancel(): void {
    if (this.#ended || this.#cancelled) return;
    this.#cancelled = true;
    this.#queue.length = 0;
    this.#link.send(encodeFrame(FrameKind.cancel, this.id));
    this.#link.forget(this.id);
    this.#wake?.();
  }
}

/** Host to agent. */
export class OutboundStream {
  readonly id: number;
  readonly writable: WritableStream<Uint8Array>;
  readonly #link: StreamLink;
  #inFlight = 0;
  #refused: Error | undefined;
  #finished = false;
  #wake: (() => void) | undefined;

  constructor(id: number, link: StreamLink) {
    this.id = id;
    this.#link = link;
    this.writable = new WritableStream<Uint8Array>({
      write: (chunk) => this.#write(chunk),
      close: () => this.#finish(),
      abort: () => this.#finish(),
    });
  }

  /** The agent consumed `bytes` more. */
  credit(bytes: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - bytes);
    this.#wake?.();
  }

  /** The agent takes no more (its reader is gone), or the link is: pending and later writes reject. */
  refuse(error: Error): void {
    this.#refused ??= error;
    this.#link.forget(this.id);
    this.#wake?.();
  }

  async #write(chunk: Uint8Array): Promise<void> {
    for (let offset = 0; offset < chunk.length;) {
      while (!this.#refused && this.#inFlight >= WINDOW_BYTES) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
      this.#throwIfRefused();
      await this.#link.drained();
      this.#throwIfRefused();
      const size = Math.min(CHUNK_BYTES, WINDOW_BYTES - this.#inFlight, chunk.length - offset);
      this.#link.send(encodeFrame(FrameKind.data, this.id, chunk.subarray(offset, offset + size)));
      this.#inFlight += size;
      offset += size;
    }
  }

  #throwIfRefused(): void {
    if (this.#refused) throw this.#refused;
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#refused) return;
    this.#link.send(encodeFrame(FrameKind.end, this.id));
    this.#link.forget(this.id);
  }
}
