/**
 * The buffer between a run and the one consumer of its async iterable. A run never waits for its
 * consumer, so what the consumer has not taken yet is held here, bounded: consecutive output chunks
 * of one stream are coalesced into one event, and once `maxOutputBytes` of output (or
 * `maxOutputEvents` output events) wait undelivered, further output is dropped and an
 * `output-dropped` event at that place says how many bytes of which stream are missing. Every
 * other event (started, tool calls, approvals, finished) is always kept: the tool-call budget
 * bounds how many there can be.
 */
import type { OutputDroppedEvent, RunEvent, RunOutputEvent } from "../events.js";

export interface EventChannelOptions {
  /** Undelivered output bytes held before output is dropped (default 1 MiB). */
  maxOutputBytes?: number;
  /** Undelivered output events (chunks and drop markers) held before output is dropped (default 1 024). */
  maxOutputEvents?: number;
}

export const DEFAULT_MAX_BUFFERED_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_MAX_BUFFERED_OUTPUT_EVENTS = 1024;

type Stream = "stdout" | "stderr";

/** A queued event; output is kept as its parts until it is taken, so coalescing copies nothing. */
type Entry =
  | { kind: "event"; event: RunEvent }
  | { kind: "output"; event: RunOutputEvent; parts: Uint8Array[]; bytes: number }
  | { kind: "dropped"; event: OutputDroppedEvent; bytes: number };

export class EventChannel implements AsyncIterable<RunEvent> {
  readonly #maxOutputBytes: number;
  readonly #maxOutputEvents: number;
  #queue: Entry[] = [];
  #head = 0;
  #outputBytes = 0;
  #outputEntries = 0;
  /** Per stream, the drop marker still queued that new drops of that stream add to. */
  readonly #openDrop: Partial<Record<Stream, Entry & { kind: "dropped" }>> = {};
  #waiter: (() => void) | undefined;
  #closed = false;
  #iterated = false;
  #detached = false;

  constructor(options: EventChannelOptions = {}) {
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_BUFFERED_OUTPUT_BYTES;
    this.#maxOutputEvents = options.maxOutputEvents ?? DEFAULT_MAX_BUFFERED_OUTPUT_EVENTS;
  }

  /** Queues an event (output may be coalesced or dropped); ignored after `close()` or once the consumer has left. */
  push(event: RunEvent): void {
    if (this.#closed || this.#detached) return;
    if (event.type === "stdout" || event.type === "stderr") this.#pushOutput(event);
    else this.#append({ kind: "event", event });
    this.#wake();
  }

  /** No more events: the consumer gets what is queued, then the end. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Bytes of output queued and not yet taken. */
  get bufferedOutputBytes(): number {
    return this.#outputBytes;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    if (this.#iterated) throw new TypeError("The events of a run can be iterated once");
    this.#iterated = true;
    return {
      next: () => this.#next(),
      return: () => {
        // The consumer left (break, throw): hold nothing more for it.
        this.#detached = true;
        this.#queue = [];
        this.#head = 0;
        this.#outputBytes = 0;
        this.#outputEntries = 0;
        this.#wake();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  async #next(): Promise<IteratorResult<RunEvent>> {
    for (;;) {
      if (this.#head < this.#queue.length) return { done: false, value: this.#take() };
      if (this.#closed || this.#detached) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  #pushOutput(event: RunOutputEvent): void {
    const stream = event.type;
    const bytes = event.chunk.byteLength;
    if (bytes === 0) return;
    const tail = this.#queue.length > this.#head ? this.#queue[this.#queue.length - 1] : undefined;
    const coalesces = tail?.kind === "output" && tail.event.type === stream;
    // A chunk is taken whole or not at all; one chunk beyond the bound is taken when nothing waits.
    const fits = this.#outputBytes === 0 || this.#outputBytes + bytes <= this.#maxOutputBytes;
    const room = coalesces || this.#outputEntries < this.#maxOutputEvents;
    if (fits && room) {
      this.#outputBytes += bytes;
      delete this.#openDrop[stream];
      if (coalesces) {
        tail.parts.push(event.chunk);
        tail.bytes += bytes;
      } else this.#append({ kind: "output", event, parts: [event.chunk], bytes });
      return;
    }
    const open = this.#openDrop[stream];
    if (open !== undefined) {
      open.bytes += bytes;
      return;
    }
    const marker: Entry & { kind: "dropped" } = { kind: "dropped", event: { type: "output-dropped", runId: event.runId, stream, bytes: 0 }, bytes };
    this.#openDrop[stream] = marker;
    this.#append(marker);
  }

  #append(entry: Entry): void {
    if (entry.kind !== "event") this.#outputEntries += 1;
    this.#queue.push(entry);
  }

  #take(): RunEvent {
    const entry = this.#queue[this.#head]!;
    this.#queue[this.#head] = undefined as unknown as Entry;
    this.#head += 1;
    // Compact now and then, so a long run's queue does not keep its taken slots.
    if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (entry.kind === "event") return entry.event;
    this.#outputEntries -= 1;
    if (entry.kind === "dropped") {
      if (this.#openDrop[entry.event.stream] === entry) delete this.#openDrop[entry.event.stream];
      return { ...entry.event, bytes: entry.bytes };
    }
    this.#outputBytes -= entry.bytes;
    return { ...entry.event, chunk: entry.parts.length === 1 ? entry.parts[0]! : concat(entry.parts, entry.bytes) };
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}

function concat(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  const joined = new Uint8Array(bytes);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}
