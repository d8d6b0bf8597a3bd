/**
 * The last characters of a stream as text, read to its end in the background: what a helper
 * process (the environment agent, the stream relay) printed on stderr before it failed, for the
 * error message, without holding more than `maxChars` of it.
 */
export class StreamTail {
  readonly #maxChars: number;
  #text = "";
  /** Settles when the stream has ended (or failed); never rejects. */
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>, maxChars = 4096) {
    this.#maxChars = maxChars;
    this.done = this.#read(stream);
  }

  /** What was read so far (its last `maxChars`), trimmed. */
  get text(): string {
    return this.#text.trim();
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        this.#text = (this.#text + decoder.decode(value, { stream: true })).slice(-this.#maxChars);
      }
    } catch {
      // Only diagnostics are lost. The lock is kept on the ended stream (see drainStream).
    }
  }
}
