/**
 * One spill file on its way into the environment. It takes bytes at once and never waits (the
 * script's output must keep being drained whatever the environment does): they are written in
 * order as the environment takes them, and queued meanwhile (at most the file's size, `spillBytes`).
 */
import type { Environment } from "../environment.js";

/** A file opened for writing: where it is, and its stream. */
export interface OpenedFile {
  path: string;
  stream: WritableStream<Uint8Array>;
}

export class SpillFile {
  readonly #environment: Environment;
  readonly #opened: Promise<{ path: string; writer: WritableStreamDefaultWriter<Uint8Array> }>;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** Bytes given before the file was open. */
  #queue: Uint8Array[] = [];
  /** Set once opening or a write failed, or the file was abandoned: bytes are then dropped. */
  #failed = false;

  constructor(environment: Environment, opening: Promise<OpenedFile>) {
    this.#environment = environment;
    const fail = () => {
      this.#failed = true;
      this.#queue = [];
    };
    this.#opened = opening.then(({ path, stream }) => {
      const writer = stream.getWriter();
      writer.closed.catch(fail);
      this.#writer = writer;
      for (const bytes of this.#queue) this.#send(bytes);
      this.#queue = [];
      return { path, writer };
    });
    this.#opened.catch(fail);
  }

  /** Takes the file's next bytes (kept: the caller must not change them). */
  write(bytes: Uint8Array): void {
    if (this.#failed) return;
    if (this.#writer === undefined) this.#queue.push(bytes);
    else this.#send(bytes);
  }

  /** Resolves with the file's path once it is whole; rejects with what failed. */
  async close(): Promise<string> {
    const { path, writer } = await this.#opened;
    await writer.close();
    return path;
  }

  /** Stops writing and removes what was written, not waiting for the environment. */
  abandon(): void {
    this.#failed = true;
    this.#queue = [];
    this.#opened.then(
      ({ path, writer }) => {
        writer.abort().catch(() => {});
        this.#environment.remove(path).catch(() => {});
      },
      () => {},
    );
  }

  #send(bytes: Uint8Array): void {
    // A failed write errors the stream: `closed` says so (above) and `close()` rejects with it.
    this.#writer!.write(bytes).catch(() => {});
  }
}
