/**
 * Output that is not lost: a stream over its cap is written whole (up to `spillBytes`) to a file
 * in the environment, and the truncation notice names it, so the model can read it in parts with
 * its own tools on the next turn.
 *
 * Where: each file in a private directory of its own (`<tempDir>/<stream>-<runId>.txt`: the
 * directory made with `tempDir()`, 0700, outside every run dir so it outlives the run; the file
 * 0600). A fresh directory per file, not one reused, because the scripts run as the environment's
 * user and may have removed the last one (writing would make it again with the default 0755),
 * replaced it with a file (every later spill would fail) or with a symlink (the next file would land
 * where the script pointed it): a directory `tempDir()` has just made under a new random name is one
 * no script has had the chance to touch. Only the newest {@link MAX_SPILL_FILES} files this host
 * wrote to an environment are kept: writing one more removes the oldest with its directory. They are
 * not removed when the environment closes (a container takes them with it; on the local host and
 * over SSH they stay in the temp dir, at most that many).
 *
 * The file holds the script's bytes as they were (binary-safe), except that secrets the result
 * would mask are masked in it too: the model must not read there what the result hid. A cut at
 * `spillBytes` moves to a UTF-8 character boundary and, when guarding secrets, past a secret's piece
 * (see `spill-segmenter.ts`).
 *
 * The file does not sit in host memory: once the stream goes over the cap, it is streamed into the
 * environment as it arrives (`Environment.openFileWriter`), only a small window held back. An
 * environment without that method gets the file in one piece at the end (`writeFile`), held until
 * then in one buffer of `spillBytes`.
 *
 * Saving never fails or holds up the run for long: reading the script's output waits for a file
 * that fell behind only while the environment keeps taking bytes (see `spill-file.ts`), and an
 * environment that errors, stalls, has not opened the file within `openMs` of the script's end, or
 * has not finished it within {@link SPILL_TIMEOUT_MS}, gives a note in the notice instead of a path
 * (the partial file is removed). A stream within its cap never touches the environment.
 */
import type { Environment } from "../environment.js";
import { errorMessage } from "../errors.js";
import { newRunId } from "../ids.js";
import { raceAbort } from "../timers/race-abort.js";
import { bufferedFileWriter } from "./buffered-file-writer.js";
import { grown } from "./growable-buffer.js";
import type { CapturedOutput, OutputCapture, SpillNote } from "./output-capture.js";
import { SpillFile, type OpenedFile } from "./spill-file.js";
import { SpillSegmenter } from "./spill-segmenter.js";

/** Spill files kept per environment (the newest); each holds at most `spillBytes`. */
export const MAX_SPILL_FILES = 20;

/** Longest wait, once the script has ended, for the environment to finish a spill file; past it the run goes on with a note. */
export const SPILL_TIMEOUT_MS = 30_000;

/** Where and how a stream is saved. */
export interface SpillTarget {
  environment: Environment;
  /** Names the file (`<stream>-<runId>.txt`); default: a fresh id. Unique per run or cell. */
  runId?: string;
  /** Which stream (`stdout`, `stderr`): part of the file name. Default `stdout`. */
  stream?: string;
  /** Secret values masked in the file as in the result; `undefined`: redaction off. */
  knownSecrets?: readonly string[];
  /** Longest wait for the file once the stream has ended (default {@link SPILL_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Longest time the environment may take no bytes while the output waits for it (default `SPILL_STALL_MS`, see `spill-file.ts`). */
  stallMs?: number;
  /** Longest wait for the file to be opened once the stream has ended (default `SPILL_OPEN_MS`, see `spill-file.ts`). */
  openMs?: number;
}

export interface SpillOptions extends SpillTarget {
  /** The most bytes of the stream the file holds (its first ones). */
  spillBytes: number;
  /** The capture's cap: a stream no longer than this is not saved (nothing is written). */
  capBytes: number;
}

/** The spill of a stream (give it to the stream's `OutputCapture`), or `undefined` when `spillBytes` is 0. */
export function outputSpill(options: SpillOptions): OutputSpill | undefined {
  const { spillBytes } = options;
  if (!Number.isSafeInteger(spillBytes) || spillBytes < 0) throw new RangeError(`Invalid spill limit: ${spillBytes}`);
  return spillBytes === 0 ? undefined : new OutputSpill(options);
}

/** Takes a stream's bytes and, once it goes over the cap, streams its first `spillBytes` into a file. */
export class OutputSpill {
  readonly #options: SpillOptions;
  #totalBytes = 0;
  /** The stream while it is within the cap (it may never need a file). */
  #early: Uint8Array = new Uint8Array(0);
  #earlyLength = 0;
  #segmenter: SpillSegmenter | undefined;
  #file: SpillFile | undefined;

  constructor(options: SpillOptions) {
    this.#options = options;
  }

  /** Takes the stream's next bytes (lent for the call). Never waits, never throws for the environment's sake. */
  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    if (this.#segmenter !== undefined) return this.#segmenter.push(chunk);
    if (this.#totalBytes <= this.#options.capBytes) {
      this.#early = grown(this.#early, this.#earlyLength, this.#earlyLength + chunk.length, this.#options.capBytes);
      this.#early.set(chunk, this.#earlyLength);
      this.#earlyLength += chunk.length;
      return;
    }
    const segmenter = this.#start();
    segmenter.push(this.#early.subarray(0, this.#earlyLength));
    this.#early = new Uint8Array(0);
    segmenter.push(chunk);
  }

  /** As `ByteCapture.ready`: a wait while the file catches up with the stream (see `spill-file.ts`). */
  ready(): Promise<void> | undefined {
    return this.#file?.ready();
  }

  /**
   * The stream has ended: finishes the file, when the stream went over the cap (else `undefined`),
   * and says where it is or why it could not be saved. `unavailable`: the environment is known to
   * be gone, so nothing more is tried and the note says so. Never rejects.
   */
  async finish(unavailable?: string): Promise<SpillNote | undefined> {
    this.#early = new Uint8Array(0);
    const segmenter = this.#segmenter;
    const file = this.#file;
    if (segmenter === undefined || file === undefined) return undefined;
    if (unavailable !== undefined) {
      file.abandon();
      return { error: unavailable };
    }
    segmenter.end();
    const timeoutMs = this.#options.timeoutMs ?? SPILL_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const { path, directory } = await raceAbort(file.close(), signal);
      await raceAbort(storeFor(this.#options.environment).keep(directory), signal);
      return { path, keptBytes: segmenter.keptBytes };
    } catch (error) {
      file.abandon();
      const why =
        error instanceof DOMException && error.name === "TimeoutError"
          ? `the environment did not answer within ${timeoutMs} ms`
          : errorMessage(error);
      return { error: why };
    }
  }

  #start(): SpillSegmenter {
    const { environment, spillBytes, knownSecrets } = this.#options;
    const name = `${this.#options.stream ?? "stdout"}-${this.#options.runId ?? newRunId()}.txt`;
    const file = new SpillFile(environment, storeFor(environment).open(name, spillBytes), this.#options.stallMs, this.#options.openMs);
    this.#file = file;
    this.#segmenter = new SpillSegmenter(spillBytes, knownSecrets, (bytes) => file.write(bytes));
    return this.#segmenter;
  }
}

/**
 * Finishes a capture, first finishing its stream's spill (when the capture cut the stream, the
 * notice then names the file). Never rejects for the environment's sake.
 */
export async function finishCapture(capture: OutputCapture, spill: OutputSpill | undefined, unavailable?: string): Promise<CapturedOutput> {
  return capture.finish(await spill?.finish(unavailable));
}

/** The spill files of one environment, oldest first, each in a directory of its own. */
class SpillStore {
  readonly #environment: Environment;
  /** The directories of the files kept, oldest first. */
  readonly #directories: string[] = [];

  constructor(environment: Environment) {
    this.#environment = environment;
  }

  /** Opens a new file of about `expectedBytes` in a new private directory: streamed where the environment can. */
  async open(name: string, expectedBytes: number): Promise<OpenedFile> {
    const directory = await this.#environment.tempDir();
    const path = `${directory}/${name}`;
    const options = { mode: 0o600 };
    const environment = this.#environment;
    const stream =
      environment.openFileWriter === undefined
        ? bufferedFileWriter(environment, path, options, expectedBytes)
        : await environment.openFileWriter(path, options).catch((error: unknown) => {
            environment.remove(directory).catch(() => {});
            throw error;
          });
    return { path, directory, stream };
  }

  /** Counts a finished file in, removing the oldest past {@link MAX_SPILL_FILES} (with their directories). */
  async keep(directory: string): Promise<void> {
    this.#directories.push(directory);
    const expired = this.#directories.splice(0, Math.max(0, this.#directories.length - MAX_SPILL_FILES));
    await Promise.all(expired.map((old) => this.#environment.remove(old).catch(() => {})));
  }
}

const stores = new WeakMap<Environment, SpillStore>();

function storeFor(environment: Environment): SpillStore {
  let store = stores.get(environment);
  if (store === undefined) {
    store = new SpillStore(environment);
    stores.set(environment, store);
  }
  return store;
}
