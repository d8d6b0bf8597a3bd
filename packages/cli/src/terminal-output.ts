/**
 * The terminal a command shares with the script it runs. The script's output is text for the
 * user to read, never commands to their terminal: its escape sequences (colours, cursor moves,
 * line erases, OSC 52 clipboard writes, a reset) are removed as from the result's `output`, also
 * when one is split across writes. codecall's own lines (progress, questions, how a run ended)
 * always start a line: after a script's unfinished line they begin with a line break, so they can
 * neither be read as the script's text nor be rewritten by it.
 */
import { isUtf8 } from "node:buffer";
import { fstatSync } from "node:fs";
import { stripAnsi, utf8SafeEnd } from "@codecall/core/plugin-kit";

/**
 * The longest tail held back as the start of a sequence a later write may finish. A longer one is
 * no sequence a terminal would wait for; it is released, without its ESC, as text.
 */
const HELD_SEQUENCE_LIMIT = 256;

/**
 * The start of a sequence that the text ends before it is finished: a CSI without its final
 * byte, an OSC/DCS/SOS/PM/APC string without its terminator (BEL or ESC \\), an ESC with only
 * intermediate bytes after it, or an ESC alone.
 */
const UNFINISHED_SEQUENCE = new RegExp(
  [
    "(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*",
    "(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*\\u001b?",
    "\\u001b[ -/]*",
  ]
    .map((pattern) => `(?:${pattern})$`)
    .join("|"),
);

const NEWLINE = 0x0a;
const ESC = 0x1b;
/** The first byte of U+0080–U+00BF in UTF-8; the C1 controls are U+0080–U+009F. */
const C1_LEAD = 0xc2;

/** Whether `bytes` (valid UTF-8) hold no ESC and no C1 control: nothing to remove. */
function holdsNoEscape(bytes: Uint8Array): boolean {
  if (bytes.indexOf(ESC) !== -1) return false;
  for (let at = bytes.indexOf(C1_LEAD); at !== -1; at = bytes.indexOf(C1_LEAD, at + 1)) {
    if (bytes[at + 1]! <= 0x9f) return false;
  }
  return true;
}

/** One output stream: its text decoder, a held unfinished sequence, and whether a line is open. */
class Channel {
  readonly stream: NodeJS.WritableStream;
  /** The last text written to it did not end its line. */
  lineOpen = false;
  #decoder = new TextDecoder();
  /** The decoder may hold the start of a character (set conservatively: see `script`). */
  #decoding = false;
  #held = "";
  /** The wait for the stream to drain, while its buffer is full. */
  #draining: Promise<void> | undefined;

  constructor(stream: NodeJS.WritableStream) {
    this.stream = stream;
  }

  /**
   * Writes the script's `chunk`, without its escape sequences; an unfinished one waits for the
   * next chunk. A promise back: the stream's buffer is full, and settles once it has drained.
   */
  script(chunk: Uint8Array): Promise<void> | undefined {
    if (chunk.length === 0) return undefined;
    // Most output holds no escape at all: its bytes go on as they are, neither decoded nor encoded
    // again (that doubled the cost of a flood), when nothing is held before them and they are
    // valid UTF-8 (invalid bytes are decoded to U+FFFD: a raw 0x9B is a CSI to some terminals).
    if (this.#held === "" && !this.#decoding && isUtf8(chunk) && holdsNoEscape(chunk)) {
      this.lineOpen = chunk[chunk.length - 1] !== NEWLINE;
      return this.#room(this.stream.write(chunk));
    }
    // The decoder holds at most 3 bytes: the start of a character at the end of this chunk, or
    // one begun before that a chunk this short may not have finished.
    this.#decoding = utf8SafeEnd(chunk) < chunk.length || (this.#decoding && chunk.length < 4);
    const text = this.#held + this.#decoder.decode(chunk, { stream: true });
    // Looked for in the last characters only: a longer tail is not held anyway.
    const tail = UNFINISHED_SEQUENCE.exec(text.slice(-HELD_SEQUENCE_LIMIT))?.[0] ?? "";
    this.#held = tail;
    return this.#room(this.#write(stripAnsi(text.slice(0, text.length - tail.length))));
  }

  /** Writes what was held (an unfinished sequence, stripped: whatever follows its ESC is text). */
  release(): void {
    const held = this.#held + this.#decoder.decode();
    this.#held = "";
    this.#decoding = false;
    this.#write(stripAnsi(held));
  }

  /** Whether the stream takes more at once (see `Writable.write`). */
  #write(text: string): boolean {
    if (text === "") return true;
    this.lineOpen = !text.endsWith("\n");
    return this.stream.write(text);
  }

  /**
   * `undefined` while the stream takes more; once it has refused (its reader is slower than the
   * script), a promise that settles when it has drained — or closed or failed, which end the
   * command elsewhere (see output-closed.ts). The run reads no more output until then, so a slow
   * reader blocks the script as a slow terminal would, instead of the buffer growing.
   */
  #room(takesMore: boolean): Promise<void> | undefined {
    // A stream already closed or ended will not say so again: nothing to wait for.
    const stream = this.stream as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
    if (takesMore || stream.destroyed === true || stream.writableEnded === true) return undefined;
    return (this.#draining ??= new Promise<void>((resolve) => {
      const settle = () => {
        stream.off("drain", settle);
        stream.off("close", settle);
        stream.off("error", settle);
        this.#draining = undefined;
        resolve();
      };
      stream.on("drain", settle);
      stream.on("close", settle);
      stream.on("error", settle);
    }));
  }
}

/** The script's output that came while a question was on screen, and the wait it was given. */
interface HeldOutput {
  readonly chunks: [Channel, Uint8Array][];
  readonly over: Promise<void>;
  readonly end: () => void;
}

/** Where a command writes the script's output and its own lines. */
export class TerminalOutput {
  readonly #stdout: Channel;
  readonly #stderr: Channel;
  /** Stdout and stderr reach the same place (a terminal, `2>&1`): a line open on either is open on both. */
  readonly #shared: boolean;
  /** Set while a question waits for its answer (see `asking`). */
  #held: HeldOutput | undefined;

  constructor(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) {
    this.#stdout = new Channel(stdout);
    this.#stderr = new Channel(stderr);
    this.#shared = sameDestination(stdout, stderr);
  }

  /**
   * Writes a chunk of the script's stdout or stderr as text. A promise back: that stream's reader
   * has fallen behind; the run should read no more output until it settles.
   */
  script(stream: "stdout" | "stderr", chunk: Uint8Array): Promise<void> | undefined {
    const channel = stream === "stdout" ? this.#stdout : this.#stderr;
    if (this.#held === undefined) return channel.script(chunk);
    // Kept (a copy: chunks may be lent) until the question is answered; the wait keeps the run
    // from reading more meanwhile, so at most a chunk per stream is kept.
    this.#held.chunks.push([channel, chunk.slice()]);
    return this.#held.over;
  }

  /**
   * A question is on screen, waiting for its answer (`true`), or none is any more (`false`). In
   * between, the script's output is held back, not written: written after the question it would
   * land on the line being answered, where a carriage return or backspaces could overwrite the
   * question (show another call than the one being approved). It is written once no question is.
   */
  asking(open: boolean): void {
    if (open) {
      if (this.#held !== undefined) return;
      let end = () => {};
      const over = new Promise<void>((resolve) => (end = resolve));
      this.#held = { chunks: [], over, end };
      return;
    }
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    for (const [channel, chunk] of held.chunks) void channel.script(chunk);
    held.end();
  }

  /**
   * Writes `text` of codecall's own on stderr, starting a line: after the script's unfinished line,
   * a line break comes first (held sequences are released before). `text` may leave its line open
   * for an answer (a question); the answer's Enter ends it. It carries words of the script (an
   * error's last line, a tool's arguments), so its escape sequences go too.
   */
  own(text: string): void {
    for (const channel of [this.#stdout, this.#stderr]) channel.release();
    if (this.#stderr.lineOpen || (this.#shared && this.#stdout.lineOpen)) this.#stderr.stream.write("\n");
    this.#stdout.lineOpen = false;
    this.#stderr.lineOpen = false;
    this.#stderr.stream.write(stripAnsi(text));
  }

  /** Writes one line of codecall's own on stderr (see `own`). */
  line(text: string): void {
    this.own(`${text}\n`);
  }

  /** Writes what is still held at the end of a run or a cell. */
  end(): void {
    this.asking(false);
    this.#stdout.release();
    this.#stderr.release();
  }
}

/** Whether two streams write to the same file, pipe or terminal (compared by device and inode). */
function sameDestination(a: NodeJS.WritableStream, b: NodeJS.WritableStream): boolean {
  const fdA = (a as { fd?: unknown }).fd;
  const fdB = (b as { fd?: unknown }).fd;
  if (typeof fdA !== "number" || typeof fdB !== "number") return false;
  try {
    const [statA, statB] = [fstatSync(fdA), fstatSync(fdB)];
    return statA.dev === statB.dev && statA.ino === statB.ino;
  } catch {
    return false;
  }
}
