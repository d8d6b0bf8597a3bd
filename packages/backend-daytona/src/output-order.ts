/**
 * Puts a command's output lines in order, exactly once, from two kinds of source:
 *
 * - the **live** log stream, through the SDK's demultiplexer, which is fast but unreliable: a
 *   line may come through the other stream's callback, and the lines before the first stream
 *   label it recognises are dropped (when a message ends right after a label — how the daemon
 *   frames messages is not specified). A reopened stream starts again from the log's beginning;
 * - **reliable** reads — the stored log (one HTTP call) or a synchronous command's result — which
 *   the daemon splits into stdout and stderr itself: complete and right up to the moment read.
 *
 * The bridge numbers its lines per stream, so a line is routed by its tag, delivered when it is
 * the next of its stream, skipped when it was delivered before, and held when an earlier one is
 * missing: the gap means the live stream dropped lines, which only a reliable read can bring. A
 * reliable read asked for after a line arrived holds every line before it (the log is appended
 * in order), so a gap it does not fill is reported: the log itself lost output. Lines that are not
 * the bridge's (its own failure messages; anything else written into the session) are counted per
 * stream and taken only from reliable reads, where their stream is known: seeing one live asks
 * for a reliable read. The first line of each stream (`o0:.`) is written before the bridge can
 * print anything else, so a live stream that dropped such a line also left a gap.
 */
import { CodecallError } from "@codecall/core";
import { completeLines, LogLines, parseLine, StreamDecoder, type StreamName } from "./output-decoder.js";

/** Characters of lines held behind a gap; past it they are dropped and read again from the stored log. */
const MAX_HELD_CHARS = 8 * 1024 * 1024;

const STREAMS: readonly StreamName[] = ["stdout", "stderr"];

/** What the live stream had brought when a reliable read was asked for. */
export interface LiveMark {
  readonly heard: Readonly<Record<StreamName, number>>;
  readonly raw: number;
}

export class OutputOrder {
  readonly #decoders: Record<StreamName, StreamDecoder>;
  /** Number of the next line of each stream to decode. */
  readonly #next: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  /** Lines that came after a gap, by number. */
  readonly #held: Record<StreamName, Map<number, string>> = { stdout: new Map(), stderr: new Map() };
  #heldChars = 0;
  /** The highest line number the live stream brought, per stream (-1: none). */
  readonly #heard: Record<StreamName, number> = { stdout: -1, stderr: -1 };
  /** Raw lines taken from reliable reads, per stream. */
  readonly #rawTaken: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  /** Raw lines (or overlong ones) seen live, and how many of them a reliable read covered. */
  #rawHeard = 0;
  #rawCovered = 0;

  /** `emit` gets each stream's decoded bytes, in order. */
  constructor(emit: (stream: StreamName, bytes: Uint8Array) => void) {
    this.#decoders = {
      stdout: new StreamDecoder((bytes) => emit("stdout", bytes)),
      stderr: new StreamDecoder((bytes) => emit("stderr", bytes)),
    };
  }

  /** Both streams were decoded through their end marks. */
  get complete(): boolean {
    return this.#decoders.stdout.ended && this.#decoders.stderr.ended;
  }

  /** The exit status the bridge's end marks carried. */
  get status(): number | undefined {
    return this.#decoders.stdout.status ?? this.#decoders.stderr.status;
  }

  /** Something came live that only a reliable read delivers: lines after a gap, or a raw line. */
  get wanting(): boolean {
    return STREAMS.some((stream) => this.#heard[stream] >= this.#next[stream]) || this.#rawHeard > this.#rawCovered;
  }

  /** A new reader of the live stream (one per stream opened): its own partial lines. */
  liveReader(): (via: StreamName, text: string) => void {
    const lines = new LogLines();
    return (via, text) => {
      const { lines: complete, overflowed } = lines.push(via, text);
      for (const line of complete) {
        const parsed = parseLine(line);
        if (parsed?.kind === "bridge") {
          this.#heard[parsed.stream] = Math.max(this.#heard[parsed.stream], parsed.seq);
          this.#offer(parsed.stream, parsed.seq, parsed.payload);
        } else if (parsed?.kind === "raw") {
          this.#rawHeard += 1;
        }
      }
      if (overflowed) this.#rawHeard += 1;
    };
  }

  /** Taken before asking for a reliable read; given back with its result. */
  mark(): LiveMark {
    return { heard: { ...this.#heard }, raw: this.#rawHeard };
  }

  /**
   * A reliable read: each stream's text from the start of the log. Throws when it lacks a line
   * the live stream had already brought before `since` was taken.
   */
  reliable(stdout: string, stderr: string, since?: LiveMark): void {
    for (const [via, text] of [
      ["stdout", stdout],
      ["stderr", stderr],
    ] as const) {
      let raw = 0;
      for (const line of completeLines(text)) {
        const parsed = parseLine(line);
        if (parsed?.kind === "bridge") this.#offer(parsed.stream, parsed.seq, parsed.payload);
        else if (parsed?.kind === "raw" && (raw += 1) > this.#rawTaken[via]) {
          this.#rawTaken[via] = raw;
          this.#decoders[via].raw(parsed.text);
        }
      }
    }
    if (since === undefined) return;
    this.#rawCovered = Math.max(this.#rawCovered, since.raw);
    for (const stream of STREAMS) {
      if (this.#next[stream] <= since.heard[stream]) {
        throw new CodecallError(
          "ENVIRONMENT_FAILED",
          `daytona: the command's stored log lacks ${stream} line ${this.#next[stream]}, which its log stream had passed; output was lost in the sandbox`,
        );
      }
    }
  }

  /** The command ended without (all) its end marks: what is held decodes as it is. */
  flush(): void {
    for (const stream of STREAMS) this.#decoders[stream].flush();
  }

  #offer(stream: StreamName, seq: number, payload: string): void {
    const next = this.#next[stream];
    if (seq < next) return;
    const held = this.#held[stream];
    if (seq > next) {
      if (!held.has(seq) && this.#heldChars + payload.length <= MAX_HELD_CHARS) {
        held.set(seq, payload);
        this.#heldChars += payload.length;
      }
      return;
    }
    const decoder = this.#decoders[stream];
    decoder.line(payload);
    let after = seq + 1;
    for (let waiting = held.get(after); waiting !== undefined; waiting = held.get(after)) {
      held.delete(after);
      this.#heldChars -= waiting.length;
      decoder.line(waiting);
      after += 1;
    }
    this.#next[stream] = after;
  }
}
