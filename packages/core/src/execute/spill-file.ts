/**
 * One spill file on its way into the environment, written in order as the environment takes the
 * bytes. One write is in flight at a time, of everything queued while the last one ran, so an
 * environment a little slower than the script gets fewer, larger writes. The bytes are queued in two
 * staging buffers used in turn (one filling while the other is written), so a spill of megabytes
 * leaves no garbage behind it; only what does not fit goes to copies of its own.
 *
 * Host memory stays bounded without letting the environment hold the script up for long: past
 * {@link SPILL_QUEUE_BYTES} queued, `ready()` asks the reader of the script's output to wait for the
 * file to catch up, but an environment that takes nothing for `stallMs` fails the file (the bytes
 * are dropped, the notice says why) and the output flows again. The script's output is never lost
 * to the file's sake: it is still captured, only the file gives up. Opening the file is one small
 * request: once the stream has ended (`close()`), an environment that has not opened it within
 * `openMs` fails the file too, so a short output over the cap is not held up for the whole
 * timeout by an environment that never answers.
 */
import type { Environment } from "../environment.js";
import { concatBytes } from "../files/concat-bytes.js";

/** Size of each staging buffer: the most one write hands the environment, when nothing overflowed. */
export const SPILL_STAGING_BYTES = 256 * 1024;

/** Bytes queued (besides the write in flight) past which the reader of the output waits for the file. */
export const SPILL_QUEUE_BYTES = SPILL_STAGING_BYTES / 2;

/** Default longest time the environment may take no bytes while the output waits for it. */
export const SPILL_STALL_MS = 2_000;

/**
 * Default longest wait, once the stream has ended, for an environment to open the file: one small
 * request, but over a remote backend it queues behind the environment's other work (seconds on a
 * loaded host), so more than a stall's bound.
 */
export const SPILL_OPEN_MS = 10_000;

/** A file opened for writing: where it is, what to remove to discard it, and its stream. */
export interface OpenedFile {
  path: string;
  /** The file's own directory (removing it removes the file). */
  directory: string;
  stream: WritableStream<Uint8Array>;
}

/** Where a finished file is. */
export type SavedFile = Omit<OpenedFile, "stream">;

export class SpillFile {
  readonly #environment: Environment;
  readonly #stallMs: number;
  readonly #openMs: number;
  readonly #opened: Promise<SavedFile & { writer: WritableStreamDefaultWriter<Uint8Array> }>;
  #isOpen = false;
  /** Bytes not yet handed to the environment: the staging buffer filling, then what did not fit in it. */
  #fill: Uint8Array = new Uint8Array(0);
  #fillLength = 0;
  #overflow: Uint8Array[] = [];
  #overflowBytes = 0;
  /** The other staging buffer, while no write holds it. */
  #spare: Uint8Array | undefined;
  /** Settles when the write in flight and those queued after it are done (or the file failed). */
  #flushed: Promise<void>;
  #writing = false;
  /** Set once opening or a write failed, the environment stalled, or the file was abandoned. */
  #failure: Error | undefined;
  readonly #failed: Promise<void>;
  #onFailed: () => void = () => {};
  /** The wait `ready()` handed out, and what ends it. */
  #room: { promise: Promise<void>; resolve: () => void; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(environment: Environment, opening: Promise<OpenedFile>, stallMs = SPILL_STALL_MS, openMs = SPILL_OPEN_MS) {
    this.#environment = environment;
    this.#stallMs = stallMs;
    this.#openMs = openMs;
    this.#failed = new Promise((resolve) => (this.#onFailed = resolve));
    this.#opened = opening.then(({ path, directory, stream }) => {
      this.#isOpen = true;
      return { path, directory, writer: stream.getWriter() };
    });
    this.#flushed = this.#pump();
  }

  /** Takes the file's next bytes (lent for the call: they are copied). */
  write(bytes: Uint8Array): void {
    if (this.#failure !== undefined || bytes.length === 0) return;
    if (this.#fill.length === 0) this.#fill = new Uint8Array(SPILL_STAGING_BYTES);
    // Once something overflowed, later bytes go after it: the staging buffer holds older ones.
    if (this.#overflow.length === 0 && this.#fillLength + bytes.length <= this.#fill.length) {
      this.#fill.set(bytes, this.#fillLength);
      this.#fillLength += bytes.length;
    } else {
      this.#overflow.push(bytes.slice());
      this.#overflowBytes += bytes.length;
    }
    if (!this.#writing) this.#flushed = this.#pump();
  }

  /**
   * `undefined` while the file keeps up; else resolves once it has caught up below
   * {@link SPILL_QUEUE_BYTES}, or has failed (at the latest after `stallMs` without progress).
   */
  ready(): Promise<void> | undefined {
    if (this.#failure !== undefined || this.#queuedBytes() <= SPILL_QUEUE_BYTES) return undefined;
    if (this.#room === undefined) {
      let resolve: () => void = () => {};
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.#room = { promise, resolve, timer: this.#stallTimer() };
    }
    return this.#room.promise;
  }

  /** Resolves with where the file is once it is whole; rejects with what failed. */
  async close(): Promise<SavedFile> {
    const openClock = this.#isOpen
      ? undefined
      : setTimeout(() => this.#fail(new Error(`the environment did not open the file within ${this.#openMs} ms`)), this.#openMs);
    const opened = await this.#unlessFailed(this.#opened).finally(() => clearTimeout(openClock));
    await this.#unlessFailed(this.#flushed);
    if (this.#failure !== undefined) throw this.#failure;
    // Only a failure ends `#unlessFailed` early, and it is set by then.
    if (opened === undefined) throw new Error("the spill file failed");
    await opened.writer.close();
    return { path: opened.path, directory: opened.directory };
  }

  /** Stops writing and removes what was written, not waiting for the environment. */
  abandon(): void {
    this.#fail(new Error("abandoned"));
    this.#opened.then(
      ({ directory, writer }) => {
        writer.abort().catch(() => {});
        this.#environment.remove(directory).catch(() => {});
      },
      () => {},
    );
  }

  /** Writes what is queued, in batches, until nothing is; a failure drops the rest. */
  async #pump(): Promise<void> {
    this.#writing = true;
    try {
      const { writer } = await this.#opened;
      while (this.#queuedBytes() > 0 && this.#failure === undefined) {
        if (this.#fillLength > 0) {
          const staged = this.#fill;
          const batch = staged.subarray(0, this.#fillLength);
          this.#fill = this.#spare ?? new Uint8Array(SPILL_STAGING_BYTES);
          this.#spare = undefined;
          this.#fillLength = 0;
          this.#progressed();
          await writer.write(batch);
          this.#spare = staged;
        } else {
          const batch = this.#overflow.length === 1 ? this.#overflow[0]! : concatBytes(this.#overflow);
          this.#overflow = [];
          this.#overflowBytes = 0;
          this.#progressed();
          await writer.write(batch);
        }
      }
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.#writing = false;
    }
  }

  /** Bytes not yet handed to the environment. */
  #queuedBytes(): number {
    return this.#fillLength + this.#overflowBytes;
  }

  /** The environment took the last write, and a new one starts: the wait ends once the queue is small again. */
  #progressed(): void {
    if (this.#room === undefined) return;
    if (this.#queuedBytes() <= SPILL_QUEUE_BYTES) return this.#endWait();
    this.#restartStallClock();
  }

  #restartStallClock(): void {
    const room = this.#room;
    if (room === undefined) return;
    clearTimeout(room.timer);
    room.timer = this.#stallTimer();
  }

  #stallTimer(): ReturnType<typeof setTimeout> {
    return setTimeout(() => this.#fail(new Error(`the environment took no part of the file for ${this.#stallMs} ms`)), this.#stallMs);
  }

  #endWait(): void {
    const room = this.#room;
    this.#room = undefined;
    if (room === undefined) return;
    clearTimeout(room.timer);
    room.resolve();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#fill = new Uint8Array(0);
    this.#fillLength = 0;
    this.#spare = undefined;
    this.#overflow = [];
    this.#overflowBytes = 0;
    this.#endWait();
    this.#onFailed();
  }

  /** `promise`, or as soon as the file fails, nothing (the caller then sees the failure). */
  async #unlessFailed<T>(promise: Promise<T>): Promise<T | undefined> {
    return Promise.race([promise, this.#failed.then(() => undefined)]);
  }
}
