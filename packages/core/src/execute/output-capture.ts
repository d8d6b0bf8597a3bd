/**
 * Bounded capture of a byte stream: keeps the first 40 % and the last 60 % of the byte budget and
 * counts the rest, so memory stays fixed whatever a script prints. Byte-accurate: the cut points
 * move to UTF-8 character boundaries, and the notice counts bytes.
 *
 * Redaction runs on the kept text and matches whole secrets only, so a secret the cut splits would
 * leave a piece on each side unmasked. With `guardSecrets`, the capture also keeps a little of
 * what surrounds each cut (`CUT_CONTEXT_BYTES`, never shown), finds the secrets that cross a cut
 * whole, and widens the cut past their pieces (8+ characters of a known value, a token, a bearer
 * token, a URL password, a private key block), counting them as omitted.
 *
 * With `spill`, the capture also hands every byte to the stream's spill (`spill-output.ts`), which
 * saves output over the cap whole to a file in the environment; the truncation notice then names it.
 */
import { groupDigits } from "../text/group-digits.js";
import { CUT_CONTEXT_BYTES, fragmentFreeEnd, fragmentFreeStart } from "../text/secret-fragments.js";
import { grown } from "./growable-buffer.js";

/** What a capture holds once its stream has ended. */
export interface CapturedOutput {
  text: string;
  truncated: boolean;
  /** Bytes the stream produced in all. */
  totalBytes: number;
  /** Bytes kept in `text` (before the notice was added). */
  capturedBytes: number;
  /** `totalBytes - capturedBytes`. */
  omittedBytes: number;
  /** The file in the environment that holds the whole stream (or its first `spillBytes`), when it was truncated and saved. */
  spillPath?: string;
}

/** Where a truncated stream was saved (see `spill-output.ts`), or why it could not be. */
export type SpillNote = { path: string; keptBytes: number } | { error: string };

/** Receives a stream's bytes and says what was kept. */
export interface ByteCapture {
  /** Takes the stream's next bytes; `chunk` is only lent for the call (a reused read buffer): copy what is kept. */
  push(chunk: Uint8Array): void;
  /**
   * Optional: `undefined` when the capture takes more at once; else a promise the reader waits for
   * before reading on (a spill file catching up, bounded in time: see `spill-file.ts`).
   */
  ready?(): Promise<void> | undefined;
  readonly totalBytes: number;
  finish(): CapturedOutput;
}

/** A capture bounded to `limitBytes`, or keeping everything when no limit is given. */
export function createCapture(limitBytes?: number): ByteCapture {
  return limitBytes === undefined ? new FullCapture() : new OutputCapture(limitBytes);
}

export interface OutputCaptureOptions {
  /** Widen the cut past pieces of these values and of well-known secret formats (`[]`: formats only). */
  guardSecrets?: readonly string[];
  /** Also gets every byte of the stream (an `OutputSpill`, see `spill-output.ts`). */
  spill?: ByteSink;
}

/** Takes a stream's bytes (lent for the call); `ready` as {@link ByteCapture.ready}. */
export interface ByteSink {
  push(chunk: Uint8Array): void;
  ready?(): Promise<void> | undefined;
}

/** Share of the budget given to the head; the tail gets the rest (the end usually matters most). */
const HEAD_SHARE = 0.4;

export class OutputCapture implements ByteCapture {
  /** Grows (doubling) up to `#headSize` as bytes arrive: a large limit costs nothing until used. */
  #head: Uint8Array = new Uint8Array(0);
  readonly #headSize: number;
  #headLength = 0;
  /**
   * The tail ring: the tail's budget, plus (when guarding secrets) the context before it. It grows
   * like the head while it is filled linearly, and reaches `#tailSize` before it first wraps.
   */
  #tail: Uint8Array = new Uint8Array(0);
  readonly #tailSize: number;
  readonly #tailBudget: number;
  /** Next write position in the tail ring, and how much of the ring is filled. */
  #tailWrite = 0;
  #tailFilled = 0;
  #totalBytes = 0;
  readonly #guardSecrets: readonly string[] | undefined;
  /** The first bytes after the head (context for the head's cut; only when guarding secrets). */
  readonly #afterHead: Uint8Array;
  #afterHeadLength = 0;
  readonly #spill: ByteSink | undefined;

  constructor(limitBytes: number, options: OutputCaptureOptions = {}) {
    if (!Number.isSafeInteger(limitBytes) || limitBytes < 0) throw new RangeError(`Invalid output limit: ${limitBytes}`);
    this.#guardSecrets = options.guardSecrets;
    const context = this.#guardSecrets === undefined ? 0 : CUT_CONTEXT_BYTES;
    this.#headSize = Math.floor(limitBytes * HEAD_SHARE);
    this.#tailBudget = limitBytes - this.#headSize;
    this.#tailSize = this.#tailBudget === 0 ? 0 : this.#tailBudget + context;
    this.#afterHead = new Uint8Array(context);
    this.#spill = options.spill;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  ready(): Promise<void> | undefined {
    return this.#spill?.ready?.();
  }

  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    this.#spill?.push(chunk);
    let rest = chunk;
    if (this.#headLength < this.#headSize) {
      const taken = Math.min(this.#headSize - this.#headLength, rest.length);
      this.#head = grown(this.#head, this.#headLength, this.#headLength + taken, this.#headSize);
      this.#head.set(rest.subarray(0, taken), this.#headLength);
      this.#headLength += taken;
      rest = rest.subarray(taken);
    }
    if (this.#afterHeadLength < this.#afterHead.length && rest.length > 0) {
      const taken = Math.min(this.#afterHead.length - this.#afterHeadLength, rest.length);
      this.#afterHead.set(rest.subarray(0, taken), this.#afterHeadLength);
      this.#afterHeadLength += taken;
    }
    if (rest.length > 0 && this.#tailSize > 0) this.#pushTail(rest);
  }

  #pushTail(bytes: Uint8Array): void {
    const size = this.#tailSize;
    // Only the last `size` bytes of a big chunk can survive.
    const kept = bytes.length > size ? bytes.subarray(bytes.length - size) : bytes;
    // Until the ring is full it is filled from 0 with no wrap (`#tailWrite === #tailFilled`), so it
    // can grow in place; it is at its full size before the first wrap.
    if (this.#tail.length < size) this.#tail = grown(this.#tail, this.#tailFilled, this.#tailFilled + kept.length, size);
    const first = Math.min(size - this.#tailWrite, kept.length);
    this.#tail.set(kept.subarray(0, first), this.#tailWrite);
    this.#tail.set(kept.subarray(first), 0);
    this.#tailWrite = (this.#tailWrite + kept.length) % size;
    this.#tailFilled = Math.min(size, this.#tailFilled + kept.length);
  }

  /** The tail's bytes in stream order. */
  #tailBytes(): Uint8Array {
    if (this.#tailFilled < this.#tailSize) return this.#tail.subarray(0, this.#tailFilled);
    const ordered = new Uint8Array(this.#tail.length);
    ordered.set(this.#tail.subarray(this.#tailWrite), 0);
    ordered.set(this.#tail.subarray(0, this.#tailWrite), this.#tail.length - this.#tailWrite);
    return ordered;
  }

  /** What was kept; `spill` (where the whole stream was saved) goes into the truncation notice. */
  finish(spill?: SpillNote): CapturedOutput {
    const head = this.#head.subarray(0, this.#headLength);
    const ring = this.#tailBytes();
    const tail = ring.subarray(Math.max(0, ring.length - this.#tailBudget));
    const context = ring.subarray(0, ring.length - tail.length);
    const kept = head.length + tail.length;
    const decoder = new TextDecoder();
    if (kept === this.#totalBytes) {
      const all = new Uint8Array(kept);
      all.set(head, 0);
      all.set(tail, head.length);
      return { text: decoder.decode(all), truncated: false, totalBytes: kept, capturedBytes: kept, omittedBytes: 0 };
    }
    const headCut = head.subarray(0, utf8SafeEnd(head));
    const tailCut = tail.subarray(utf8SafeStart(tail));
    let headText = decoder.decode(headCut);
    let tailText = decoder.decode(tailCut);
    let widenedBytes = 0;
    if (this.#guardSecrets !== undefined) {
      const after = decoder.decode(this.#afterHead.subarray(0, this.#afterHeadLength));
      // When nothing was lost from the ring, the head itself comes right before the context.
      const wrapped = this.#totalBytes > head.length + ring.length;
      const before = (wrapped ? "" : headText) + decoder.decode(context);
      const headEnd = fragmentFreeEnd(headText, this.#guardSecrets, after);
      const tailStart = fragmentFreeStart(tailText, this.#guardSecrets, before);
      const encoder = new TextEncoder();
      widenedBytes = encoder.encode(headText.slice(headEnd)).length + encoder.encode(tailText.slice(0, tailStart)).length;
      headText = headText.slice(0, headEnd);
      tailText = tailText.slice(tailStart);
    }
    const capturedBytes = headCut.length + tailCut.length - widenedBytes;
    const omittedBytes = this.#totalBytes - capturedBytes;
    const notice = `\n\n... [OUTPUT TRUNCATED - ${groupDigits(omittedBytes)} bytes omitted out of ${groupDigits(this.#totalBytes)} total]${spillNotice(spill, this.#totalBytes)} ...\n\n`;
    const output: CapturedOutput = { text: headText + notice + tailText, truncated: true, totalBytes: this.#totalBytes, capturedBytes, omittedBytes };
    if (spill !== undefined && "path" in spill) output.spillPath = spill.path;
    return output;
  }
}

/** Length of `bytes` without a trailing incomplete UTF-8 sequence. */
export function utf8SafeEnd(bytes: Uint8Array): number {
  let index = bytes.length - 1;
  let continuation = 0;
  while (index >= 0 && continuation < 3 && (bytes[index]! & 0xc0) === 0x80) {
    index -= 1;
    continuation += 1;
  }
  if (index < 0) return bytes.length;
  const lead = bytes[index]!;
  const needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return needed > continuation ? index : bytes.length;
}

/** Offset of the first byte in `bytes` that starts a UTF-8 character. */
function utf8SafeStart(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length && index < 3 && (bytes[index]! & 0xc0) === 0x80) index += 1;
  return index;
}

/** The truncation notice's word on the spill file (after the counts), or nothing without one. */
function spillNotice(spill: SpillNote | undefined, totalBytes: number): string {
  if (spill === undefined) return "";
  if ("error" in spill) return ` [the whole output could not be saved to a file: ${spill.error}]`;
  const what = spill.keptBytes >= totalBytes ? "the whole output is" : `its first ${groupDigits(spill.keptBytes)} bytes are`;
  return ` [${what} in ${spill.path}: read it in parts]`;
}

/** Keeps every byte; only for output the caller trusts to be small. */
class FullCapture implements ByteCapture {
  readonly #chunks: Uint8Array[] = [];
  #totalBytes = 0;

  get totalBytes(): number {
    return this.#totalBytes;
  }

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk.slice());
    this.#totalBytes += chunk.length;
  }

  finish(): CapturedOutput {
    const all = new Uint8Array(this.#totalBytes);
    let offset = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    const total = this.#totalBytes;
    return { text: new TextDecoder().decode(all), truncated: false, totalBytes: total, capturedBytes: total, omittedBytes: 0 };
  }
}
