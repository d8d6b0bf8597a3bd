/**
 * The host side of the bridge's output encoding (see bridge.sh).
 *
 * {@link LogLines} turns the text the SDK hands over — per stream, in any split — into complete
 * lines, each routed by the bridge's tag (`o` stdout, `e` stderr) rather than by the callback it
 * came through: the SDK's demultiplexer, when a log message ends right after a stream label,
 * leaks label bytes into the text and gives the next lines to the wrong stream. The leaked bytes
 * (0x01, 0x02) never occur in the encoding and are dropped; lines stay whole because the daemon
 * writes each labelled line at once. Untagged lines are the bridge's own failure messages, from
 * before it could encode: they stay with the stream that brought them. `>` lines are an echo of
 * our input (from a daemon that ignores `suppressInputEcho`) and are dropped.
 *
 * {@link StreamDecoder} turns one stream's lines back into bytes: base64 lines gather until one
 * ending in `.`; `!STATUS` ends the stream.
 *
 * Memory stays bounded whatever arrives (a script runs as the daemon's user and can write into
 * the session's pipes itself): a line or a chunk that outgrows the bound leaves as raw text.
 */

/** Far above one encoded chunk (48 KiB read → 64 KiB of base64 in tagged lines). */
const MAX_PENDING_CHARS = 1024 * 1024;

// eslint-disable-next-line no-control-regex -- these control bytes are exactly what is to be dropped
const LEAKED_LABEL_BYTES = /[\x01\x02]/g;
const BASE64 = /^[A-Za-z0-9+/]+=*$/;

/** Where a line goes: a bridge stream by tag, or raw text on the stream that brought it. */
export type LineRoute = "stdout" | "stderr" | "raw-stdout" | "raw-stderr";

export interface RoutedLine {
  route: LineRoute;
  /** Without the tag (a raw line whole, without its newline). */
  content: string;
}

/** Complete lines out of the text of the two SDK streams. */
export class LogLines {
  readonly #partial = { stdout: "", stderr: "" };

  /** `via` is the callback the text came through. */
  push(via: "stdout" | "stderr", text: string): RoutedLine[] {
    const lines = (this.#partial[via] + text.replace(LEAKED_LABEL_BYTES, "")).split("\n");
    let partial = lines.pop() ?? "";
    const routed: RoutedLine[] = [];
    for (const line of lines) {
      const found = route(via, line);
      if (found) routed.push(found);
    }
    if (partial.length > MAX_PENDING_CHARS) {
      routed.push({ route: via === "stdout" ? "raw-stdout" : "raw-stderr", content: partial });
      partial = "";
    }
    this.#partial[via] = partial;
    return routed;
  }
}

function route(via: "stdout" | "stderr", line: string): RoutedLine | undefined {
  if (line.startsWith(">") || line.length === 0) return undefined;
  const tag = line[0];
  if (tag === "o" || tag === "e") {
    const content = line.slice(1);
    if (content.startsWith("!") || BASE64.test(content.endsWith(".") ? content.slice(0, -1) : content)) {
      return { route: tag === "o" ? "stdout" : "stderr", content };
    }
  }
  return { route: via === "stdout" ? "raw-stdout" : "raw-stderr", content: line };
}

/** One stream's bytes back from its lines. */
export class StreamDecoder {
  readonly #emit: (bytes: Uint8Array) => void;
  #base64: string[] = [];
  #base64Length = 0;
  #ended = false;
  #status: number | undefined;

  /** `emit` gets the decoded bytes, in order. */
  constructor(emit: (bytes: Uint8Array) => void) {
    this.#emit = emit;
  }

  /** True once the end mark arrived; later lines are ignored. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The exit status the end mark carried. */
  get status(): number | undefined {
    return this.#status;
  }

  /** A line of the bridge's encoding, tag removed. */
  line(content: string): void {
    if (this.#ended) return;
    if (content.startsWith("!")) {
      this.#flushAsText();
      this.#ended = true;
      if (/^\d+$/.test(content.slice(1))) this.#status = Number(content.slice(1));
      return;
    }
    if (this.#base64Length + content.length > MAX_PENDING_CHARS) this.#flushAsText();
    if (!content.endsWith(".")) {
      this.#base64.push(content);
      this.#base64Length += content.length;
      return;
    }
    const encoded = this.#base64.join("") + content.slice(0, -1);
    this.#base64 = [];
    this.#base64Length = 0;
    this.#emit(Buffer.from(encoded, "base64"));
  }

  /** A line that is not the bridge's: it passes as text. */
  raw(line: string): void {
    if (this.#ended) return;
    this.#flushAsText();
    this.#emit(new TextEncoder().encode(`${line}\n`));
  }

  /** The stream ended without an end mark: what is held back leaves as text. */
  flush(): void {
    if (!this.#ended) this.#flushAsText();
  }

  /** Lines never closed by one ending in `.` were not a chunk after all. */
  #flushAsText(): void {
    if (this.#base64.length === 0) return;
    const text = this.#base64.map((line) => `${line}\n`).join("");
    this.#base64 = [];
    this.#base64Length = 0;
    this.#emit(new TextEncoder().encode(text));
  }
}

/** The daemon's stream labels in a combined log (`output`): stdout and stderr lines start with these. */
const STDOUT_MARK = "\x01\x01\x01";
const STDERR_MARK = "\x02\x02\x02";

/**
 * Splits a labelled session log into stdout and stderr, for daemons that return only the combined
 * `output` (newer ones split it themselves). Text before the first label is stdout.
 */
export function demultiplexLog(output: string): { stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  let toStderr = false;
  let rest = output;
  while (rest.length > 0) {
    const out = rest.indexOf(STDOUT_MARK);
    const err = rest.indexOf(STDERR_MARK);
    const next = out === -1 ? err : err === -1 ? out : Math.min(out, err);
    const piece = next === -1 ? rest : rest.slice(0, next);
    if (toStderr) stderr += piece;
    else stdout += piece;
    if (next === -1) break;
    toStderr = next === err;
    rest = rest.slice(next + STDOUT_MARK.length);
  }
  return { stdout, stderr };
}
