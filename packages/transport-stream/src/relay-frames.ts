/**
 * The framing between the host and the stream relay (see `guest/relay.py`): the relay greets once,
 * then both sides send `"<connection> <length>\n"` headers, each followed by exactly `length` bytes
 * of one guest connection's stream; length 0 means that connection closed. Flow control is per
 * connection: `"<connection> ack <count>\n"` says the receiver consumed `count` more bytes of that
 * connection's data (the host: requests it has started; the relay: answers the guest has taken).
 *
 * The relay runs as the script's own user, so the script could write into its stdout: everything
 * read here is checked, and a frame is bounded, so garbage ends the link instead of the host.
 */

/** The relay's first line, once its socket listens. */
export const RELAY_GREETING = "codecall-relay/1 ready";

/** The relay sends at most 64 KiB per frame; anything much larger is not the relay talking. */
export const MAX_RELAY_FRAME_BYTES = 1 << 20;

/** Bytes of other output (a noisy login shell) tolerated before the greeting. */
const MAX_PREAMBLE_BYTES = 4096;
/** "4294967295 ack 4294967295\n" fits; a longer header is garbage. */
const MAX_HEADER_BYTES = 32;
const HEADER = /^(\d{1,10}) (\d{1,8})$/;
const ACK_HEADER = /^(\d{1,10}) ack (\d{1,10})$/;
const NEWLINE = 0x0a;

/** One thing the relay said. */
export type RelayEvent =
  | { kind: "greeting" }
  | { kind: "data"; connection: number; data: Uint8Array }
  | { kind: "closed"; connection: number }
  | { kind: "ack"; connection: number; bytes: number };

/** The relay's output broke the framing. */
export class RelayProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RelayProtocolError";
  }
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Splits the relay's stdout into events; chunks may split anywhere. */
export class RelayFrameDecoder {
  #buffer: Uint8Array = new Uint8Array(0);
  #greeted = false;
  #preambleBytes = 0;
  /** The header read, while its payload is still arriving. */
  #frame: { connection: number; length: number } | undefined;

  /** Decodes what `chunk` completes. Throws {@link RelayProtocolError} on garbage. */
  push(chunk: Uint8Array): RelayEvent[] {
    this.#append(chunk);
    const events: RelayEvent[] = [];
    for (;;) {
      const event = this.#greeted ? this.#nextFrame() : this.#nextGreeting();
      if (event === undefined) return events;
      if (event !== "skipped") events.push(event);
    }
  }

  #nextGreeting(): RelayEvent | "skipped" | undefined {
    const line = this.#takeLine(MAX_PREAMBLE_BYTES - this.#preambleBytes, "before its greeting");
    if (line === undefined) return undefined;
    this.#preambleBytes += line.length + 1;
    if (decoder.decode(line).trimEnd() !== RELAY_GREETING) return "skipped";
    this.#greeted = true;
    return { kind: "greeting" };
  }

  #nextFrame(): RelayEvent | undefined {
    if (this.#frame === undefined) {
      const line = this.#takeLine(MAX_HEADER_BYTES, "in a frame header");
      if (line === undefined) return undefined;
      const header = decoder.decode(line);
      const ack = ACK_HEADER.exec(header);
      if (ack) return { kind: "ack", connection: Number(ack[1]), bytes: Number(ack[2]) };
      const match = HEADER.exec(header);
      if (!match) throw new RelayProtocolError(`the relay sent a bad frame header: ${JSON.stringify(header.slice(0, MAX_HEADER_BYTES))}`);
      const length = Number(match[2]);
      if (length > MAX_RELAY_FRAME_BYTES) throw new RelayProtocolError(`the relay sent a ${length}-byte frame (at most ${MAX_RELAY_FRAME_BYTES})`);
      this.#frame = { connection: Number(match[1]), length };
    }
    const { connection, length } = this.#frame;
    if (length === 0) {
      this.#frame = undefined;
      return { kind: "closed", connection };
    }
    if (this.#buffer.length < length) return undefined;
    const data = this.#buffer.slice(0, length);
    this.#buffer = this.#buffer.subarray(length);
    this.#frame = undefined;
    return { kind: "data", connection, data };
  }

  /** The next line without its newline; undefined when incomplete. Throws when longer than `limit`. */
  #takeLine(limit: number, where: string): Uint8Array | undefined {
    const end = this.#buffer.indexOf(NEWLINE);
    if (end < 0) {
      if (this.#buffer.length > limit) throw new RelayProtocolError(`the relay sent over ${limit} bytes without a newline ${where}`);
      return undefined;
    }
    if (end > limit) throw new RelayProtocolError(`the relay sent a ${end}-byte line ${where} (at most ${limit})`);
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.subarray(end + 1);
    return line;
  }

  #append(chunk: Uint8Array): void {
    if (this.#buffer.length === 0) {
      this.#buffer = chunk;
      return;
    }
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    this.#buffer = joined;
  }
}

/** What the relay's bootstrap reads before any frame: the source's byte length on a line, then the source. */
export function encodeRelayBoot(source: Uint8Array): Uint8Array {
  return withHeader(`${source.length}\n`, source);
}

/** One frame for the relay: `data` for guest connection `connection` (empty = close it). */
export function encodeRelayFrame(connection: number, data: Uint8Array | string): Uint8Array {
  const payload = typeof data === "string" ? encoder.encode(data) : data;
  return withHeader(`${connection} ${payload.length}\n`, payload);
}

/** Tells the relay that `bytes` more of connection `connection`'s requests were consumed. */
export function encodeRelayAck(connection: number, bytes: number): Uint8Array {
  return encoder.encode(`${connection} ack ${bytes}\n`);
}

function withHeader(header: string, payload: Uint8Array): Uint8Array {
  const head = encoder.encode(header);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}
