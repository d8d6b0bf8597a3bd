/**
 * The MCP server's stdio transport: one JSON-RPC message per line on stdin, answers on stdout. It
 * replaces the SDK's `StdioServerTransport`, which (1.32) ends the whole connection when a line
 * passes its 10 MiB buffer, without an answer; drops a line it cannot read, so the client waits
 * for ever; and leaves a failed write to stdout (EPIPE: the client has gone) as an unhandled
 * 'error' event, which crashes the process before its runs are interrupted and their run dirs
 * removed. Here a line over `maxMessageBytes` is skipped (only its first and last bytes are held,
 * to read its id) and answered, an unreadable line is answered, and a failed write closes the
 * connection, which interrupts the runs as the end of stdin does.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ID_SEARCH_BYTES, oversizedLineAnswer, readMessageLine } from "./unreadable-message.js";

const NEWLINE = 0x0a;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxBytes: number;
  /** The pieces of the line being read (at most `maxBytes` in all). */
  #pieces: Buffer[] = [];
  #size = 0;
  /** Set while the rest of an oversized line is skipped: its first bytes, and its last ones so far. */
  #skipped: { head: Buffer; tail: Buffer } | undefined;
  #closed = false;

  constructor(stdin: Readable, stdout: Writable, options: { maxMessageBytes: number }) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxBytes = options.maxMessageBytes;
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onReadError);
    // Kept after close: a write still under way may fail later, and with no listener that is a crash.
    this.#stdout.on("error", this.#onWriteError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The stdio connection is closed"));
    return new Promise((resolve, reject) => {
      this.#stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onReadError);
    // Stop reading unless someone else reads stdin too.
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#pieces = [];
    this.#skipped = undefined;
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (!this.#closed) {
      const end = bytes.indexOf(NEWLINE, start);
      this.#take(bytes.subarray(start, end === -1 ? bytes.length : end));
      if (end === -1) return;
      this.#endLine();
      start = end + 1;
    }
  };

  /** A piece of the current line: held while the line fits, else only its ends are kept. */
  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipped === undefined && this.#size + piece.length <= this.#maxBytes) {
      this.#pieces.push(piece);
      this.#size += piece.length;
      return;
    }
    if (this.#skipped === undefined) {
      // Copies: the ends are kept, not the line (or the chunk) they are views of.
      const start = Buffer.concat([...this.#pieces, piece.subarray(0, ID_SEARCH_BYTES)]);
      this.#skipped = {
        head: Buffer.from(start.subarray(0, ID_SEARCH_BYTES)),
        tail: Buffer.from(Buffer.concat(this.#pieces).subarray(-ID_SEARCH_BYTES)),
      };
      this.#pieces = [];
      this.#size = 0;
    }
    this.#skipped.tail = Buffer.from(Buffer.concat([this.#skipped.tail, piece.subarray(-ID_SEARCH_BYTES)]).subarray(-ID_SEARCH_BYTES));
  }

  #endLine(): void {
    const skipped = this.#skipped;
    if (skipped !== undefined) {
      this.#skipped = undefined;
      this.#answer(oversizedLineAnswer(skipped.head.toString("utf8"), skipped.tail.toString("utf8"), this.#maxBytes));
      return;
    }
    const line = Buffer.concat(this.#pieces).toString("utf8").replace(/\r$/, "");
    this.#pieces = [];
    this.#size = 0;
    // A blank line (a client's keep-alive, a stray CRLF) carries nothing to answer.
    if (line.trim() === "") return;
    const reading = readMessageLine(line);
    if ("answer" in reading) this.#answer(reading.answer);
    else this.onmessage?.(reading.message);
  }

  #answer(answer: JSONRPCMessage): void {
    this.send(answer).catch(() => {
      // A failed write closes the connection (see #onWriteError); there is nobody left to tell.
    });
  }

  readonly #onReadError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onWriteError = (error: Error): void => {
    if (this.#closed) return;
    this.onerror?.(error);
    void this.close();
  };
}
