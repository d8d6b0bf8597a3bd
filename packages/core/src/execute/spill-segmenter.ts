/**
 * The bytes of a spill file, worked out while the stream arrives, so they can be written as they
 * come instead of sitting in host memory until the stream ends.
 *
 * The file is the stream's first `limitBytes` bytes as they were (binary-safe), except that
 * secrets the result would mask are masked in it too. Only a bounded window is held back
 * ({@link SPILL_WINDOW_BYTES}): what a later byte could still change. With secrets, the window is
 * emitted up to a place where redacting the part before it on its own masks what redacting the
 * whole would (`asciiSafeCut`); each part is written as the script's own bytes when redaction
 * changes nothing in it, else as its redacted text. At the end, a cut at `limitBytes` moves back to
 * a UTF-8 character boundary and, with secrets, past a secret's piece (seen whole thanks to the
 * bytes after the limit kept as context): decisions that need only the window.
 */
import { redactSecrets, knownSecretList } from "../text/redact.js";
import { CUT_CONTEXT_BYTES, fragmentFreeEnd } from "../text/secret-fragments.js";
import { asciiSafeCut } from "../text/streaming-redactor.js";
import { utf8SafeEnd } from "./output-capture.js";

/**
 * The most bytes held back while no safe place to cut comes (a private key block is about 3.3 KiB).
 * Past it the window is cut anyway (best effort, at a character boundary), so memory stays bounded.
 */
export const SPILL_WINDOW_BYTES = 64 * 1024;

/** Held bytes are looked at for a cut only from this many on, so small writes are batched. */
const EMIT_BATCH_BYTES = 16 * 1024;

/** The longest UTF-8 character, less one: what a cut at the limit may still drop. */
const UTF8_TAIL_BYTES = 3;

const ASCII_WHITESPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]);

export class SpillSegmenter {
  readonly #limitBytes: number;
  /** As given (for `redactSecrets`), and as matched by value; `undefined`: redaction off. */
  readonly #knownSecrets: readonly string[] | undefined;
  readonly #secretList: string[];
  readonly #emit: (bytes: Uint8Array) => void;
  readonly #window: Uint8Array;
  #held = 0;
  /** Stream bytes taken into the file's part (at most `limitBytes`), and in all. */
  #taken = 0;
  #totalBytes = 0;
  #keptBytes = 0;
  /** The bytes right after the limit: context for the cut there, never written. */
  readonly #after: Uint8Array;
  #afterLength = 0;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();

  /** Emits the file's bytes in order through `emit` (lent for the call); `knownSecrets` undefined: redaction off. */
  constructor(limitBytes: number, knownSecrets: readonly string[] | undefined, emit: (bytes: Uint8Array) => void) {
    this.#limitBytes = limitBytes;
    this.#knownSecrets = knownSecrets;
    this.#secretList = knownSecretList(knownSecrets);
    this.#emit = emit;
    this.#window = new Uint8Array(Math.min(limitBytes, SPILL_WINDOW_BYTES));
    this.#after = new Uint8Array(knownSecrets === undefined ? 0 : CUT_CONTEXT_BYTES);
  }

  /** Stream bytes the emitted file stands for (final after `end()`). */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** Takes the stream's next bytes (lent for the call: what is held is copied). */
  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    let rest = chunk;
    while (rest.length > 0 && this.#taken < this.#limitBytes) {
      const taken = Math.min(this.#window.length - this.#held, this.#limitBytes - this.#taken, rest.length);
      const added = rest.subarray(0, taken);
      this.#window.set(added, this.#held);
      this.#held += taken;
      this.#taken += taken;
      rest = rest.subarray(taken);
      // At the limit, what is held waits for `end()`: its cut there sees all of it, and what follows.
      // (Cut earlier, a secret crossing the limit would lose its beginning and go unrecognised.)
      if (this.#taken === this.#limitBytes) break;
      const full = this.#held === this.#window.length;
      // With secrets, a new cut can only come with new whitespace (or a full window, cut anyway).
      const worthLooking = this.#knownSecrets === undefined || full || added.some((byte) => ASCII_WHITESPACE.has(byte));
      if (this.#held >= Math.min(EMIT_BATCH_BYTES, this.#window.length) && worthLooking) this.#emitHeld(full);
    }
    if (rest.length > 0 && this.#afterLength < this.#after.length) {
      const taken = Math.min(this.#after.length - this.#afterLength, rest.length);
      this.#after.set(rest.subarray(0, taken), this.#afterLength);
      this.#afterLength += taken;
    }
  }

  /** The stream has ended: emits what is still held, cut at the limit when the stream went past it. */
  end(): void {
    const held = this.#window.subarray(0, this.#held);
    this.#held = 0;
    if (this.#totalBytes <= this.#limitBytes) return this.#emitPart(held);
    const whole = held.subarray(0, utf8SafeEnd(held));
    if (this.#knownSecrets === undefined) return this.#emitPart(whole);
    const text = this.#decoder.decode(whole);
    const end = fragmentFreeEnd(text, this.#knownSecrets, this.#decoder.decode(this.#after.subarray(0, this.#afterLength)));
    if (end === text.length) return this.#emitPart(whole);
    const kept = text.slice(0, end);
    this.#keptBytes += this.#encoder.encode(kept).length;
    const redacted = redactSecrets(kept, { knownSecrets: this.#knownSecrets });
    if (redacted !== "") this.#emit(this.#encoder.encode(redacted));
  }

  /** Emits the held bytes up to the last place nothing after can change; with `full`, somewhere anyway. */
  #emitHeld(full: boolean): void {
    let cut: number;
    let partText: string | undefined;
    if (this.#knownSecrets === undefined) {
      // Only the cut at the limit needs a look back, over the last character's bytes.
      cut = Math.max(0, this.#held - UTF8_TAIL_BYTES);
    } else {
      const held = this.#window.subarray(0, this.#held);
      const complete = held.subarray(0, utf8SafeEnd(held));
      const text = this.#decoder.decode(complete);
      const textCut = asciiSafeCut(text, this.#secretList);
      cut = byteOffsetOfCut(complete, text, textCut);
      // The bytes before an ASCII cut decode to the text before it: no need to decode them again.
      if (cut > 0) partText = text.slice(0, textCut);
      else if (full) {
        const half = held.subarray(0, Math.ceil(held.length / 2));
        cut = utf8SafeEnd(half) || half.length;
        // Not inside a secret: its two pieces, redacted apart, would join again in the file.
        const halfText = this.#decoder.decode(held.subarray(0, cut));
        const end = fragmentFreeEnd(halfText, this.#knownSecrets, text.slice(halfText.length));
        if (end > 0 && end < halfText.length) {
          partText = halfText.slice(0, end);
          cut = this.#encoder.encode(partText).length;
        }
      }
    }
    if (cut === 0) return;
    this.#emitPart(this.#window.subarray(0, cut), partText);
    this.#window.copyWithin(0, cut, this.#held);
    this.#held -= cut;
  }

  /** Emits `bytes` (a part that redacts on its own; `text`: their decoding, when known): themselves when redaction changes nothing. */
  #emitPart(bytes: Uint8Array, text = this.#knownSecrets === undefined ? "" : this.#decoder.decode(bytes)): void {
    if (bytes.length === 0) return;
    this.#keptBytes += bytes.length;
    if (this.#knownSecrets !== undefined) {
      const redacted = redactSecrets(text, { knownSecrets: this.#knownSecrets });
      // Re-encoded only when something was masked: binary output is otherwise kept exactly.
      if (redacted !== text) return this.#emit(this.#encoder.encode(redacted));
    }
    this.#emit(bytes);
  }
}

/**
 * The offset in `bytes` of `cut`, a cut of `text` (their decoding) just after an ASCII whitespace
 * character, or 0. The ASCII whitespace bytes and characters match one to one, so counting those
 * after the cut finds it, walking back from the end.
 */
function byteOffsetOfCut(bytes: Uint8Array, text: string, cut: number): number {
  if (cut === 0) return 0;
  let after = 0;
  for (let index = cut; index < text.length; index += 1) if (ASCII_WHITESPACE.has(text.charCodeAt(index))) after += 1;
  for (let index = bytes.length - 1; index >= 0; index -= 1) {
    if (!ASCII_WHITESPACE.has(bytes[index]!)) continue;
    if (after === 0) return index + 1;
    after -= 1;
  }
  return 0;
}
