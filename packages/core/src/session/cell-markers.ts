/**
 * Splitting a kernel's output stream into its cells: the kernel ends each cell's output with a
 * marker line, the session's nonce then a JSON object (see `_codecall_kernel.py`). The nonce is
 * random and never in the environment, so a cell printing text that looks like a marker does not
 * end its cell.
 */

/** Receives a stream's bytes with the markers taken out. */
export interface MarkedStreamHandler {
  /** Output, in order; never split inside a marker. */
  onData(chunk: Uint8Array): void;
  /** A marker's JSON value (a line with the nonce but no JSON after it is data). */
  onMarker(payload: unknown): void;
}

const NEWLINE = 0x0a;
/**
 * Longest JSON a marker carries (the kernel's are a few hundred bytes). The nonce followed by more
 * than this without a newline is output: a cell can read the nonce from the kernel's memory, and
 * the host must not hold what it prints after it until a newline that may never come.
 */
export const MAX_MARKER_PAYLOAD_BYTES = 4096;

/**
 * Finds the markers in a byte stream. Output is passed on as it comes, except for the last bytes
 * of a chunk that could be the start of a nonce (fewer than its length), which wait for the next.
 */
export class CellMarkerSplitter {
  readonly #nonce: Uint8Array;
  readonly #handler: MarkedStreamHandler;
  #pending: Uint8Array = new Uint8Array(0);

  constructor(nonce: string, handler: MarkedStreamHandler) {
    this.#nonce = new TextEncoder().encode(nonce);
    this.#handler = handler;
  }

  push(chunk: Uint8Array): void {
    let bytes = this.#pending.length === 0 ? chunk : concat(this.#pending, chunk);
    for (;;) {
      const start = indexOf(bytes, this.#nonce);
      if (start === -1) {
        const keep = partialNonceLength(bytes, this.#nonce);
        this.#emitData(bytes.subarray(0, bytes.length - keep));
        this.#pending = bytes.slice(bytes.length - keep);
        return;
      }
      this.#emitData(bytes.subarray(0, start));
      const payloadStart = start + this.#nonce.length;
      const end = bytes.indexOf(NEWLINE, payloadStart);
      const payloadBytes = (end === -1 ? bytes.length : end) - payloadStart;
      if (payloadBytes > MAX_MARKER_PAYLOAD_BYTES) {
        // Too long for a marker: the nonce is output, and the search goes on after it.
        this.#emitData(bytes.subarray(start, payloadStart));
        bytes = bytes.subarray(payloadStart);
        continue;
      }
      if (end === -1) {
        this.#pending = bytes.slice(start);
        return;
      }
      const payload = parse(bytes.subarray(payloadStart, end));
      // Only the kernel knows the nonce; a line that has it but no JSON after it is output all the same.
      if (payload === undefined) this.#emitData(bytes.subarray(start, end + 1));
      else this.#handler.onMarker(payload);
      bytes = bytes.subarray(end + 1);
    }
  }

  /** The stream has ended: what was held back (a cut marker, the start of a nonce) is output. */
  end(): void {
    const rest = this.#pending;
    this.#pending = new Uint8Array(0);
    this.#emitData(rest);
  }

  #emitData(bytes: Uint8Array): void {
    if (bytes.length > 0) this.#handler.onData(bytes);
  }
}

function parse(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first, 0);
  joined.set(second, first.length);
  return joined;
}

/** First index of `needle` in `bytes`, or -1 (it jumps from one occurrence of the needle's first byte to the next). */
function indexOf(bytes: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let start = bytes.indexOf(first); start !== -1 && start + needle.length <= bytes.length; start = bytes.indexOf(first, start + 1)) {
    let index = 1;
    while (index < needle.length && bytes[start + index] === needle[index]) index += 1;
    if (index === needle.length) return start;
  }
  return -1;
}

/** Length of the longest end of `bytes` that is a proper prefix of `nonce`. */
function partialNonceLength(bytes: Uint8Array, nonce: Uint8Array): number {
  for (let length = Math.min(nonce.length - 1, bytes.length); length > 0; length -= 1) {
    let matches = true;
    for (let index = 0; index < length && matches; index += 1) matches = bytes[bytes.length - length + index] === nonce[index];
    if (matches) return length;
  }
  return 0;
}
