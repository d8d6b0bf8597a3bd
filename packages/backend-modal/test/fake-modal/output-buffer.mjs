// One output stream (stdout or stderr) of a fake exec: the bytes the process wrote, served to
// TaskExecStdioRead by offset as the SDK asks (it resumes a broken read at the offset it had).
// Like a pipe, it holds back the process when the reader falls behind: the source is paused
// while more than HIGH_WATER bytes wait unsent. Bytes far behind the newest read are dropped.

/** Unsent bytes at which the process's pipe is paused. */
const HIGH_WATER = 8 * 1024 * 1024;
/** Bytes kept behind the newest read offset, for a read that resumes after a broken stream. */
const RESUME_WINDOW = 8 * 1024 * 1024;

export class OutputBuffer {
  /** @type {Buffer[]} */
  #chunks = [];
  /** Offset of the first byte in #chunks. */
  #base = 0;
  #total = 0;
  #ended = false;
  /** Highest offset a reader has been sent. */
  #sent = 0;
  /** @type {Set<() => void>} */
  #waiters = new Set();
  /** @type {import("node:stream").Readable | undefined} */
  #source;

  /** Reads `source` to its end (or nothing, for an ignored stream). */
  constructor(source) {
    this.#source = source;
    if (!source) {
      this.#ended = true;
      return;
    }
    source.on("data", (chunk) => {
      this.#chunks.push(chunk);
      this.#total += chunk.length;
      if (this.#total - this.#sent > HIGH_WATER) source.pause();
      this.#wake();
    });
    source.on("close", () => this.end());
    source.on("error", () => this.end());
  }

  get ended() {
    return this.#ended;
  }

  /** No more bytes will come. */
  end() {
    this.#ended = true;
    this.#wake();
  }

  /**
   * Up to `max` bytes from `offset` on that are here now (empty when there are none yet), or
   * undefined when `offset` was dropped.
   */
  read(offset, max) {
    if (offset < this.#base) return undefined;
    const parts = [];
    let size = 0;
    let start = this.#base;
    for (const chunk of this.#chunks) {
      const end = start + chunk.length;
      if (end > offset && size < max) {
        const from = Math.max(0, offset - start);
        const part = chunk.subarray(from, from + (max - size));
        parts.push(part);
        size += part.length;
      }
      start = end;
    }
    return Buffer.concat(parts);
  }

  /** A reader was sent everything before `offset`: drops what no resume can ask for, lets the source go on. */
  sentUpTo(offset) {
    this.#sent = Math.max(this.#sent, offset);
    while (this.#chunks.length > 0 && this.#base + this.#chunks[0].length < this.#sent - RESUME_WINDOW) {
      this.#base += this.#chunks.shift().length;
    }
    if (this.#source?.isPaused() && this.#total - this.#sent <= HIGH_WATER) this.#source.resume();
  }

  get total() {
    return this.#total;
  }

  /** Resolves on the next change (new bytes, the end) or when `signal` aborts. */
  changed(signal) {
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  #wake() {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
