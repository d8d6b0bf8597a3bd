/**
 * Splits a byte stream into NDJSON frames with a size limit, for transports that receive bytes
 * (sockets, pipes). A frame over the limit is not buffered: its first bytes are kept so the id can
 * be recovered, the rest is skipped up to the next newline, and decoding goes on. With a shared
 * {@link ByteBudget}, the bytes an unfinished frame holds are also counted against the run's
 * connections in all; a frame the budget cannot hold is skipped in the same way.
 */
import { grown } from "../execute/growable-buffer.js";
import { concatBytes } from "../files/concat-bytes.js";
import type { ByteBudget } from "./connection-budget.js";

const NEWLINE = 0x0a;
/** How much of an oversized frame is kept, enough to read its `jsonrpc` and `id`. */
const OVERSIZE_PREFIX_BYTES = 256;
/** An unfinished frame's buffer up to this size is kept for the next one; a larger one is let go. */
const KEPT_BUFFER_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

/**
 * One decoded unit: a complete frame, or the notice that a frame was skipped — over the frame
 * limit, or (`bytes` then counts what had arrived when it was refused) over the shared budget.
 */
export type DecodedFrame = { kind: "frame"; line: string } | { kind: "oversized"; prefix: string; bytes: number; over: "frame" | "budget" };

export class FrameDecoder {
  readonly #maxFrameBytes: number;
  readonly #text = new TextDecoder("utf-8");
  /**
   * The unfinished frame, in one buffer that doubles as it fills: a guest that sends a byte at a
   * time costs the host those bytes, not an object per read.
   */
  #pending: Uint8Array = EMPTY;
  #pendingBytes = 0;
  /** While skipping an oversized frame: its kept prefix and running size. */
  #oversized: { prefix: string; bytes: number; over: "frame" | "budget" } | undefined;
  readonly #budget: ByteBudget | undefined;

  /** `budget`: shared with other decoders, it bounds what all of them hold together. */
  constructor(maxFrameBytes: number, budget?: ByteBudget) {
    this.#maxFrameBytes = maxFrameBytes;
    this.#budget = budget;
  }

  /** Feeds bytes; returns the frames they complete, in order. */
  push(chunk: Uint8Array): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start));
        break;
      }
      // The common case, a whole frame within one chunk, is decoded where it lies (no copy).
      const whole = this.#pendingBytes === 0 && this.#oversized === undefined && newline - start <= this.#maxFrameBytes;
      if (!whole) this.#append(chunk.subarray(start, newline));
      const frame = whole ? this.#decodeLine(chunk.subarray(start, newline)) : this.#finishFrame();
      if (frame) out.push(frame);
      start = newline + 1;
    }
    return out;
  }

  /** Bytes of an unfinished frame still held (bounded by the frame limit). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** The stream has ended: the unfinished frame is dropped and its bytes go back to the budget. */
  release(): void {
    this.#drop();
    this.#oversized = undefined;
  }

  #append(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.#oversized) {
      this.#oversized.bytes += part.length;
      return;
    }
    const tooLarge = this.#pendingBytes + part.length > this.#maxFrameBytes;
    if (tooLarge || (this.#budget !== undefined && !this.#budget.take(part.length))) {
      const held = this.#pending.subarray(0, Math.min(this.#pendingBytes, OVERSIZE_PREFIX_BYTES));
      const head = concatBytes([held, part.subarray(0, OVERSIZE_PREFIX_BYTES - held.length)]);
      this.#oversized = { prefix: this.#text.decode(head), bytes: this.#pendingBytes + part.length, over: tooLarge ? "frame" : "budget" };
      this.#drop();
      return;
    }
    // Copied: the caller may reuse its buffer (Node does for some sockets).
    this.#pending = grown(this.#pending, this.#pendingBytes, this.#pendingBytes + part.length, this.#maxFrameBytes);
    this.#pending.set(part, this.#pendingBytes);
    this.#pendingBytes += part.length;
  }

  #finishFrame(): DecodedFrame | undefined {
    if (this.#oversized) {
      const { prefix, bytes, over } = this.#oversized;
      this.#oversized = undefined;
      return { kind: "oversized", prefix, bytes, over };
    }
    const frame = this.#decodeLine(this.#pending.subarray(0, this.#pendingBytes));
    this.#drop();
    return frame;
  }

  /** Lets go of the unfinished frame's bytes. */
  #drop(): void {
    this.#budget?.give(this.#pendingBytes);
    if (this.#pending.length > KEPT_BUFFER_BYTES) this.#pending = EMPTY;
    this.#pendingBytes = 0;
  }

  #decodeLine(bytes: Uint8Array): DecodedFrame | undefined {
    const text = this.#text.decode(bytes);
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    // Blank lines are keep-alives at most; they are not requests.
    return line.trim() === "" ? undefined : { kind: "frame", line };
  }
}
