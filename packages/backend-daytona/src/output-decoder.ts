/**
 * The host side of the bridge's output encoding (see bridge.sh): a command's log as lines, each
 * line parsed, and one stream's lines back to bytes. Which lines to decode, in which order, is
 * output-order.ts's business.
 *
 * {@link LogLines} turns the text the SDK hands over — per stream, in any split — into complete
 * lines. The SDK's demultiplexer, when a log message ends right after a stream label, leaks label
 * bytes into the text; those (0x01, 0x02) never occur in the encoding and are dropped. Lines stay
 * whole because the daemon writes each labelled line of the bridge at once.
 *
 * Memory stays bounded whatever arrives (a script runs as the daemon's user and can write into
 * the session's pipes itself): a line or a chunk that outgrows the bound does not wait longer.
 */

/** Far above one encoded chunk (48 KiB read → 64 KiB of base64 in numbered lines). */
export const MAX_PENDING_CHARS = 1024 * 1024;

// eslint-disable-next-line no-control-regex -- these control bytes are exactly what is to be dropped
const LEAKED_LABEL_BYTES = /[\x01\x02]/g;
const BRIDGE_LINE = /^([oe])(\d{1,15}):(.*)$/;
const PAYLOAD = /^(?:![0-9]{1,3}|[A-Za-z0-9+/]*={0,2}\.?)$/;

export type StreamName = "stdout" | "stderr";

/** A line of a command's log: one the bridge wrote (tag, number, payload), or any other. */
export type LogLine =
  | { readonly kind: "bridge"; readonly stream: StreamName; readonly seq: number; readonly payload: string }
  | { readonly kind: "raw"; readonly text: string };

/**
 * What a log line is. Undefined for an echo of our own input (`>` lines, from a daemon that
 * ignores `suppressInputEcho`). A line that looks like the bridge's but is not well-formed is raw:
 * it is shown as it is, never decoded.
 */
export function parseLine(line: string): LogLine | undefined {
  if (line.startsWith(">")) return undefined;
  const match = BRIDGE_LINE.exec(line);
  if (match && PAYLOAD.test(match[3]!)) {
    return { kind: "bridge", stream: match[1] === "o" ? "stdout" : "stderr", seq: Number(match[2]), payload: match[3]! };
  }
  return { kind: "raw", text: line };
}

/** Complete lines out of the text of the two SDK streams, as it arrives. */
export class LogLines {
  readonly #partial = { stdout: "", stderr: "" };

  /**
   * The lines `text` completes; `via` is the callback it came through. `overflowed`: a partial
   * line outgrew the bound and was dropped (what it was is in the stored log).
   */
  push(via: StreamName, text: string): { lines: string[]; overflowed: boolean } {
    const lines = (this.#partial[via] + text.replace(LEAKED_LABEL_BYTES, "")).split("\n");
    const partial = lines.pop() ?? "";
    const overflowed = partial.length > MAX_PENDING_CHARS;
    this.#partial[via] = overflowed ? "" : partial;
    return { lines, overflowed };
  }
}

/** The complete lines of a whole text (a stored log): a last line without its newline is still being written. */
export function completeLines(text: string): string[] {
  const lines = text.replace(LEAKED_LABEL_BYTES, "").split("\n");
  lines.pop();
  return lines;
}

/** One stream's bytes back from its bridge lines' payloads, given in order. */
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

  /** The payload of the stream's next line: base64 (`.` ends a chunk) or `!STATUS`. */
  line(payload: string): void {
    if (this.#ended) return;
    if (payload.startsWith("!")) {
      this.flush();
      this.#ended = true;
      this.#status = Number(payload.slice(1));
      return;
    }
    const last = payload.endsWith(".");
    const base64 = last ? payload.slice(0, -1) : payload;
    this.#base64.push(base64);
    this.#base64Length += base64.length;
    // The bridge's lines but a chunk's last are whole base64 quads, so a chunk decodes in parts as well as whole.
    if (last || this.#base64Length > MAX_PENDING_CHARS) this.flush();
  }

  /** A line that is not the bridge's: it passes as text. */
  raw(text: string): void {
    if (this.#ended) return;
    this.flush();
    this.#emit(new TextEncoder().encode(`${text}\n`));
  }

  /** Decodes what is held (a chunk whose last line will not come: the stream ended without its mark). */
  flush(): void {
    if (this.#base64.length === 0) return;
    const bytes = Buffer.from(this.#base64.join(""), "base64");
    this.#base64 = [];
    this.#base64Length = 0;
    if (bytes.length > 0) this.#emit(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
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
