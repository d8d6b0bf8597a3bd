/**
 * Progress of one `execute_code` request, as MCP `notifications/progress`: what the script prints
 * (line by line) and the tools it calls, so a client can show a long run as it goes. A script may
 * print a million lines; the client gets at most one notification per interval and never more than
 * one in flight, each carrying the latest lines (bounded), so neither side's memory nor the
 * connection grows with the output.
 */

/** Sends one notification; resolves when it is written. */
export type SendProgress = (progress: number, message: string) => Promise<void>;

/** The longest message sent (the end of what was pending is kept). */
const MAX_MESSAGE_CHARS = 1_000;

export class ProgressReporter {
  readonly #send: SendProgress;
  readonly #minIntervalMs: number;
  readonly #decoder = new TextDecoder();
  /** The unfinished last line of the output. */
  #partialLine = "";
  /** Lines not sent yet (bounded to the end of the text). */
  #pending = "";
  #progress = 0;
  #inFlight: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastSentAt = -Infinity;
  #closed = false;

  constructor(send: SendProgress, options: { minIntervalMs?: number } = {}) {
    this.#send = send;
    this.#minIntervalMs = options.minIntervalMs ?? 100;
  }

  /** A chunk of the script's (redacted) stdout: every finished line becomes a message. */
  output(chunk: Uint8Array): void {
    const text = this.#partialLine + this.#decoder.decode(chunk, { stream: true });
    const end = text.lastIndexOf("\n");
    // An endless line is cut, so the held part stays bounded too.
    this.#partialLine = end === -1 ? text.slice(-MAX_MESSAGE_CHARS) : text.slice(end + 1).slice(-MAX_MESSAGE_CHARS);
    if (end !== -1) this.note(text.slice(0, end));
  }

  /** Any message (a tool call, a line of output). */
  note(message: string): void {
    if (this.#closed || message === "") return;
    const joined = this.#pending === "" ? message : `${this.#pending}\n${message}`;
    this.#pending = joined.length > MAX_MESSAGE_CHARS ? joined.slice(-MAX_MESSAGE_CHARS) : joined;
    this.#schedule();
  }

  /** Sends what is still pending (the last partial line included) and stops; resolves once it is written. */
  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#partialLine !== "") this.note(this.#partialLine);
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#inFlight;
    if (this.#pending !== "") await this.#flush();
  }

  #schedule(): void {
    if (this.#inFlight || this.#timer) return;
    const wait = this.#lastSentAt + this.#minIntervalMs - performance.now();
    if (wait <= 0) {
      void this.#flush();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, wait);
    this.#timer.unref?.();
  }

  async #flush(): Promise<void> {
    const message = this.#pending;
    this.#pending = "";
    this.#progress += 1;
    this.#lastSentAt = performance.now();
    this.#inFlight = this.#send(this.#progress, message).catch(() => {
      // The client went away: there is no one to tell, and the run ends by its own signal.
    });
    await this.#inFlight;
    this.#inFlight = undefined;
    if (this.#pending !== "" && !this.#closed) this.#schedule();
  }
}
