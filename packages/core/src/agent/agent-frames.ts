/**
 * The frames between the host and the environment agent (`python/agent_wire.py` says the same from
 * the agent's side): after the agent's magic line, a 9-byte header — kind (u8), channel (u32),
 * length (u32), big-endian — and `length` bytes of payload, JSON for control frames and raw bytes
 * for data. Binary-safe, and cheap to check.
 *
 * The agent runs as the environment's user, so a script there could write into its stdout:
 * everything read here is checked, and each kind of frame has a size bound, so garbage ends the
 * link (and the agent) instead of growing the host's memory.
 */

import { concatBytes } from "../files/concat-bytes.js";

/** The agent's first line; what comes before it (a login shell's banner) is skipped. */
export const AGENT_MAGIC = "codecall-agent/1\n";
/** The protocol version the agent's hello must name. */
export const AGENT_PROTOCOL = 1;

export const FrameKind = { hello: 1, request: 2, reply: 3, event: 4, data: 5, end: 6, credit: 7, cancel: 8 } as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** The most one data frame carries. */
export const CHUNK_BYTES = 64 * 1024;
/** Bytes of one stream a sender may have sent that the receiver has not consumed yet. */
export const WINDOW_BYTES = 256 * 1024;

const HEADER_BYTES = 9;
/** Bytes of other output tolerated before the magic line. */
const MAX_PREAMBLE_BYTES = 4096;
/** The largest payload the agent may send, per kind (a hello carries the whole environment block). */
const FROM_AGENT: ReadonlyMap<number, number> = new Map([
  [FrameKind.hello, 16 * 1024 * 1024],
  [FrameKind.reply, 1024 * 1024],
  [FrameKind.event, 64 * 1024],
  [FrameKind.data, CHUNK_BYTES],
  [FrameKind.end, 0],
  [FrameKind.credit, 4],
  [FrameKind.cancel, 0],
]);

/** The agent's output broke the framing; nothing after it can be trusted. */
export class AgentProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentProtocolError";
  }
}

/** One frame from the agent. */
export interface AgentFrame {
  kind: FrameKind;
  channel: number;
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const magic = encoder.encode(AGENT_MAGIC);

/** Splits the agent's stdout into frames; chunks may split anywhere. */
export class AgentFrameDecoder {
  #buffer: Uint8Array = new Uint8Array(0);
  #started = false;

  /** Decodes what `chunk` completes. Throws {@link AgentProtocolError} on garbage. */
  push(chunk: Uint8Array): AgentFrame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : concatBytes([this.#buffer, chunk]);
    if (!this.#started && !this.#findMagic()) return [];
    const frames: AgentFrame[] = [];
    const buffer = this.#buffer;
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    let start = 0;
    while (buffer.length - start >= HEADER_BYTES) {
      const kind = view.getUint8(start);
      const channel = view.getUint32(start + 1);
      const length = view.getUint32(start + 5);
      const limit = FROM_AGENT.get(kind);
      if (limit === undefined) throw new AgentProtocolError(`the agent sent a frame of unknown kind ${kind}`);
      if (length > limit) throw new AgentProtocolError(`the agent sent a ${length}-byte frame of kind ${kind} (at most ${limit})`);
      const end = start + HEADER_BYTES + length;
      if (end > buffer.length) break;
      frames.push({ kind: kind as FrameKind, channel, payload: buffer.slice(start + HEADER_BYTES, end) });
      start = end;
    }
    this.#buffer = buffer.subarray(start);
    return frames;
  }

  /** Drops what precedes the magic line; false while it has not arrived. */
  #findMagic(): boolean {
    const at = indexOf(this.#buffer, magic);
    if (at < 0) {
      if (this.#buffer.length > MAX_PREAMBLE_BYTES + magic.length) {
        throw new AgentProtocolError(`the agent printed over ${MAX_PREAMBLE_BYTES} bytes before its first line`);
      }
      return false;
    }
    if (at > MAX_PREAMBLE_BYTES) throw new AgentProtocolError(`the agent printed ${at} bytes before its first line`);
    this.#buffer = this.#buffer.subarray(at + magic.length);
    this.#started = true;
    return true;
  }
}

export function encodeFrame(kind: FrameKind, channel: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const frame = new Uint8Array(HEADER_BYTES + payload.length);
  const view = new DataView(frame.buffer);
  view.setUint8(0, kind);
  view.setUint32(1, channel);
  view.setUint32(5, payload.length);
  frame.set(payload, HEADER_BYTES);
  return frame;
}

export function encodeJsonFrame(kind: FrameKind, channel: number, value: unknown): Uint8Array {
  return encodeFrame(kind, channel, encoder.encode(JSON.stringify(value)));
}

export function encodeCredit(channel: number, bytes: number): Uint8Array {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, bytes);
  return encodeFrame(FrameKind.credit, channel, payload);
}

export function readCredit(payload: Uint8Array): number {
  if (payload.length !== 4) throw new AgentProtocolError(`the agent sent a ${payload.length}-byte credit`);
  return new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
}

/** A control frame's JSON object; throws {@link AgentProtocolError} for anything else. */
export function readJson(payload: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(payload));
  } catch {
    throw new AgentProtocolError(`the agent sent ${what} that is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new AgentProtocolError(`the agent sent ${what} that is not an object`);
  return value as Record<string, unknown>;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let at = haystack.indexOf(first); at >= 0 && at + needle.length <= haystack.length; at = haystack.indexOf(first, at + 1)) {
    let index = 1;
    while (index < needle.length && haystack[at + index] === needle[index]) index += 1;
    if (index === needle.length) return at;
  }
  return -1;
}
