/**
 * The host side of the bridge's output encoding (see bridge.sh): text as the SDK hands it over,
 * split into lines; base64 lines gather until one ending in `.` and leave as the bytes they
 * encode; `!STATUS` ends the stream. Lines the bridge never writes — its own
 * failure messages before it could start encoding — pass through as text, and an input echo
 * (`>` lines, from a daemon that ignores `suppressInputEcho`) is dropped.
 *
 * Memory stays bounded whatever arrives: the output of a script that writes straight into the
 * session's pipes (it runs as the same user) is cut into raw text once a line or a chunk
 * outgrows the bound, rather than held.
 */

/** Far above one encoded chunk (48 KiB read → 64 KiB of base64 plus newlines). */
const MAX_PENDING_CHARS = 1024 * 1024;

const BASE64_LINE = /^[A-Za-z0-9+/]+=*\.?$/;

export class OutputDecoder {
  readonly #emit: (bytes: Uint8Array) => void;
  #partial = "";
  #base64: string[] = [];
  #base64Length = 0;
  #ended = false;
  #status: number | undefined;

  /** `emit` gets the decoded bytes, in order. */
  constructor(emit: (bytes: Uint8Array) => void) {
    this.#emit = emit;
  }

  /** True once the end mark arrived; later text is ignored. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The exit status the end mark carried. */
  get status(): number | undefined {
    return this.#status;
  }

  /** Takes the next piece of the stream's text, in any split. */
  push(text: string): void {
    if (this.#ended) return;
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      this.#line(line);
      if (this.#ended) return;
    }
    if (this.#partial.length > MAX_PENDING_CHARS) {
      this.#raw(this.#partial);
      this.#partial = "";
    }
  }

  /** The stream ended without an end mark: what is held back leaves as text. */
  flush(): void {
    if (this.#ended) return;
    this.#flushBase64AsText();
    if (this.#partial) this.#raw(this.#partial);
    this.#partial = "";
  }

  #line(line: string): void {
    if (line.startsWith("!")) {
      this.#flushBase64AsText();
      this.#ended = true;
      const status = line.slice(1);
      if (/^\d+$/.test(status)) this.#status = Number(status);
    } else if (line.startsWith(">")) {
      // An echo of our own input.
    } else if (BASE64_LINE.test(line) && this.#base64Length + line.length <= MAX_PENDING_CHARS) {
      if (!line.endsWith(".")) {
        this.#base64.push(line);
        this.#base64Length += line.length;
        return;
      }
      const encoded = this.#base64.join("") + line.slice(0, -1);
      this.#base64 = [];
      this.#base64Length = 0;
      this.#emit(Buffer.from(encoded, "base64"));
    } else {
      this.#flushBase64AsText();
      this.#raw(`${line}\n`);
    }
  }

  /** Lines that looked like base64 but were never closed (a last one ending in `.`) were text after all. */
  #flushBase64AsText(): void {
    if (this.#base64.length === 0) return;
    const text = this.#base64.map((line) => `${line}\n`).join("");
    this.#base64 = [];
    this.#base64Length = 0;
    this.#raw(text);
  }

  #raw(text: string): void {
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
