/**
 * Output that is not lost: a stream over its cap is written whole (up to `spillBytes`) to a file
 * in the environment, and the truncation notice names it, so the model can read it in parts with
 * its own tools on the next turn.
 *
 * Where: one private directory per environment (made with `tempDir()`, 0700, outside every run
 * dir so it outlives the run), one file per run (`<stream>-<runId>.txt`, 0600). Only the newest
 * {@link MAX_SPILL_FILES} files this host wrote to an environment are kept: writing one more removes
 * the oldest. The directory is not removed when the environment closes (a container takes it with
 * it; on the local host and over SSH it stays in the temp dir, holding at most that many files).
 *
 * The file holds the script's bytes as they were (binary-safe), except that secrets the result
 * would mask are masked in it too: the model must not read there what the result hid. A cut at
 * `spillBytes` moves to a UTF-8 character boundary and, when guarding secrets, past a secret's piece.
 *
 * Saving never fails or holds up the run: an environment that errors or does not answer within
 * {@link SPILL_TIMEOUT_MS} gives a note in the notice instead of a path.
 */
import type { Environment } from "../environment.js";
import { errorMessage } from "../errors.js";
import { newRunId } from "../ids.js";
import { redactSecrets } from "../text/redact.js";
import { fragmentFreeEnd } from "../text/secret-fragments.js";
import { raceAbort } from "../timers/race-abort.js";
import { utf8SafeEnd, type CapturedOutput, type OutputCapture, type SpillNote } from "./output-capture.js";
import type { SpilledBytes } from "./spill-buffer.js";

/** Spill files kept per environment (the newest); each holds at most `spillBytes`. */
export const MAX_SPILL_FILES = 20;

/** Longest wait for the environment to take a spill file; past it the run goes on with a note. */
export const SPILL_TIMEOUT_MS = 30_000;

/** Where and how a capture is saved. */
export interface SpillTarget {
  environment: Environment;
  /** Names the file (`<stream>-<runId>.txt`); default: a fresh id. Unique per run or cell. */
  runId?: string;
  /** Which stream (`stdout`, `stderr`): part of the file name. Default `stdout`. */
  stream?: string;
  /** Secret values masked in the file as in the result; `undefined`: redaction off. */
  knownSecrets?: readonly string[];
  /** Longest wait for the write (default {@link SPILL_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Set when the environment is known to be gone: nothing is tried, the note says so. */
  unavailable?: string;
}

/**
 * Finishes a capture, first saving the whole stream to a file in the environment when the capture
 * cut it (and keeps spill bytes): the notice then names the file. Never rejects for the
 * environment's sake.
 */
export async function finishCapture(capture: OutputCapture, target: SpillTarget): Promise<CapturedOutput> {
  const spilled = capture.spilled();
  if (spilled === undefined) return capture.finish();
  const note: SpillNote = target.unavailable === undefined ? await spillOutput(spilled, target) : { error: target.unavailable };
  return capture.finish(note);
}

/** Writes `spilled` to a new file in the environment; the note says where, or why it could not. */
export async function spillOutput(spilled: SpilledBytes, target: SpillTarget): Promise<SpillNote> {
  const { bytes, keptBytes } = spillContent(spilled, target.knownSecrets);
  const name = `${target.stream ?? "stdout"}-${target.runId ?? newRunId()}.txt`;
  const timeoutMs = target.timeoutMs ?? SPILL_TIMEOUT_MS;
  try {
    const path = await raceAbort(storeFor(target.environment).write(name, bytes), AbortSignal.timeout(timeoutMs));
    return { path, keptBytes };
  } catch (error) {
    const why =
      error instanceof DOMException && error.name === "TimeoutError" ? `the environment did not answer within ${timeoutMs} ms` : errorMessage(error);
    return { error: why };
  }
}

/** The bytes to write, and how many of the stream's bytes they stand for. */
function spillContent(spilled: SpilledBytes, knownSecrets: readonly string[] | undefined): { bytes: Uint8Array; keptBytes: number } {
  const whole = spilled.bytes.length >= spilled.totalBytes;
  let kept = whole ? spilled.bytes : spilled.bytes.subarray(0, utf8SafeEnd(spilled.bytes));
  if (knownSecrets === undefined) return { bytes: kept, keptBytes: kept.length };
  const decoder = new TextDecoder();
  let text = decoder.decode(kept);
  if (!whole) {
    const end = fragmentFreeEnd(text, knownSecrets, decoder.decode(spilled.after));
    if (end < text.length) {
      text = text.slice(0, end);
      kept = new TextEncoder().encode(text);
    }
  }
  const redacted = redactSecrets(text, { knownSecrets });
  // Nothing to mask: the script's own bytes, so binary output is kept exactly.
  if (redacted === text) return { bytes: kept, keptBytes: kept.length };
  return { bytes: new TextEncoder().encode(redacted), keptBytes: kept.length };
}

/** The spill files of one environment, oldest first. */
class SpillStore {
  readonly #environment: Environment;
  #directory: Promise<string> | undefined;
  readonly #files: string[] = [];

  constructor(environment: Environment) {
    this.#environment = environment;
  }

  async write(name: string, bytes: Uint8Array): Promise<string> {
    const path = `${await this.#dir()}/${name}`;
    await this.#environment.writeFile(path, bytes, { mode: 0o600 });
    this.#files.push(path);
    const expired = this.#files.splice(0, Math.max(0, this.#files.length - MAX_SPILL_FILES));
    await Promise.all(expired.map((old) => this.#environment.remove(old).catch(() => {})));
    return path;
  }

  /** The environment's spill directory, made on first use (again after a failure). */
  #dir(): Promise<string> {
    if (this.#directory === undefined) {
      const made = this.#environment.tempDir();
      this.#directory = made;
      made.catch(() => {
        if (this.#directory === made) this.#directory = undefined;
      });
    }
    return this.#directory;
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
