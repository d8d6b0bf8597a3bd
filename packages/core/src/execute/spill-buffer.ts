/**
 * The first bytes of a stream, kept so output over the capture's cap can be written whole to a
 * file in the environment (see `spill-output.ts`). Bounded: `limitBytes` (plus a little context
 * past them when guarding secrets, so the cut at the limit can be widened past a secret's piece).
 */
import { grown } from "./growable-buffer.js";

/** What a spill buffer kept of its stream. */
export interface SpilledBytes {
  /** The first `limitBytes` bytes of the stream (all of it when it was shorter). */
  bytes: Uint8Array;
  /** Bytes the stream produced in all. */
  totalBytes: number;
  /** The bytes right after `bytes` (up to the context size): never written, only looked at. */
  after: Uint8Array;
}

export class SpillBuffer {
  #buffer: Uint8Array = new Uint8Array(0);
  #length = 0;
  #totalBytes = 0;
  readonly #limitBytes: number;
  readonly #capacity: number;

  /** Keeps the first `limitBytes` bytes, and `contextBytes` more to look at past them. */
  constructor(limitBytes: number, contextBytes = 0) {
    this.#limitBytes = limitBytes;
    this.#capacity = limitBytes + contextBytes;
  }

  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    const taken = Math.min(this.#capacity - this.#length, chunk.length);
    if (taken <= 0) return;
    this.#buffer = grown(this.#buffer, this.#length, this.#length + taken, this.#capacity);
    this.#buffer.set(chunk.subarray(0, taken), this.#length);
    this.#length += taken;
  }

  /** What was kept so far (views, not copies: read them before the buffer is dropped). */
  contents(): SpilledBytes {
    const kept = Math.min(this.#length, this.#limitBytes);
    return {
      bytes: this.#buffer.subarray(0, kept),
      totalBytes: this.#totalBytes,
      after: this.#buffer.subarray(kept, this.#length),
    };
  }
}
