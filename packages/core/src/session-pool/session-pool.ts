/**
 * A pool of long-lived sessions, one per key (a conversation): what lets one `execute_code` tool
 * keep a Python kernel for each conversation it serves without keeping kernels forever.
 *
 * - A session ends after `idleMs` without a cell (its kernel holds memory and processes).
 * - At most `maxSessions` live at once; making room ends the session idle the longest, never one
 *   with a cell running or waiting. When every session is busy the new conversation is refused
 *   (`SESSION_LIMIT`) rather than ending someone's running cell.
 * - Each session was made for one tool set (its `fingerprint`: the stub module's source). A call
 *   with another fingerprint ends it and makes a new one, so a script never imports stale stubs.
 * - Cells of one key run one after another (a kernel runs one cell at a time); keys run in parallel.
 *
 * Generic over the session, so it holds whatever `create` makes; it needs only `close()`.
 */
import { CodecallError, errorMessage } from "../errors.js";
import { setLongTimeout, type LongTimeout } from "../timers/long-timeout.js";

/** What the pool needs of a session: a way to end it. */
export interface PoolableSession {
  close(): Promise<void>;
}

/** How long sessions live and how many there may be. */
export interface SessionPoolOptions {
  /** A session that has run no cell for this long is closed (ms; default 15 minutes; `Infinity`: never). */
  idleMs?: number;
  /** Most sessions alive at once (default 16). */
  maxSessions?: number;
}

export const DEFAULT_SESSION_IDLE_MS = 15 * 60_000;

/** An idle time as the model and the user read it: "15 minutes", "90 seconds", "200 ms". */
export function describeIdleTime(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? "" : "s"}`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
export const DEFAULT_MAX_SESSIONS = 16;

/** Why a key's earlier session is gone: the next session's first cell starts without its state. */
export type SessionEndReason = "idle" | "evicted" | "tools-changed" | "ended";

/** The session a call got, and whether it is the one the key had before. */
export interface PooledUse<S> {
  session: S;
  /**
   * `existing`: the key's session, state and all. `new`: a fresh session; `previousEnd` then says
   * why an earlier session of this key is gone (absent for a key the pool has not seen).
   */
  origin: "existing" | "new";
  previousEnd?: SessionEndReason;
}

interface Entry<S> {
  key: string;
  fingerprint: string;
  /** The session, once made (creation is async, and the slot is held meanwhile). */
  session: Promise<S>;
  /** Calls using or waiting for this session: above zero it is never ended to make room or for idleness. */
  busy: number;
  /** A call has used the session: its state is the conversation's. */
  used: boolean;
  /** When a call last used it, on the pool's use counter (not the clock: two uses in one millisecond still have an order). */
  lastUsed: number;
  /** The end of the last queued call: calls of one key run in turn. */
  tail: Promise<unknown>;
  idleTimer?: LongTimeout;
}

/** How many ended keys are remembered, so a returning conversation is told why its state is gone. */
const REMEMBERED_ENDS = 1_000;

export class SessionPool<S extends PoolableSession> {
  readonly idleMs: number;
  readonly maxSessions: number;
  readonly #entries = new Map<string, Entry<S>>();
  readonly #ended = new Map<string, SessionEndReason>();
  readonly #closing = new Set<Promise<void>>();
  #closed = false;
  #uses = 0;

  constructor(options: SessionPoolOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (typeof this.idleMs !== "number" || !(this.idleMs > 0)) {
      throw new CodecallError("INVALID_OPTIONS", `idleMs must be a positive number of milliseconds, got ${String(options.idleMs)}`);
    }
    if (!Number.isSafeInteger(this.maxSessions) || this.maxSessions < 1) {
      throw new CodecallError("INVALID_OPTIONS", `maxSessions must be a whole number of at least 1, got ${String(options.maxSessions)}`);
    }
  }

  /** Sessions alive (or being made) now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The keys with a session now, idle the longest first. */
  keys(): string[] {
    return [...this.#entries.values()].sort((a, b) => a.lastUsed - b.lastUsed).map((entry) => entry.key);
  }

  /**
   * Runs `work` with `key`'s session, after the key's earlier calls: its session when it was made
   * for `fingerprint`, else a new one from `create` (ending the old one). Throws `SESSION_LIMIT`
   * when a new session is needed and every slot is busy, and `SESSION_CLOSED` after `close()`;
   * whatever `create` or `work` throws is passed on (a failed `create` leaves no session behind).
   */
  async use<T>(key: string, fingerprint: string, create: () => Promise<S>, work: (use: PooledUse<S>) => Promise<T>): Promise<T> {
    this.#assertOpen();
    let entry = this.#entries.get(key);
    if (entry === undefined) entry = this.#open(key, fingerprint, create);
    entry.busy += 1;
    entry.idleTimer?.clear();
    const mine = entry;
    const turn = mine.tail.then(async () => {
      let use: PooledUse<S>;
      if (this.#entries.get(key) !== mine) {
        // Its making failed (say why), or it ended (close(), end()) while this call waited its turn.
        await mine.session;
        this.#assertOpen();
        throw new CodecallError("SESSION_CLOSED", `The session of ${JSON.stringify(key)} ended while this call waited for its turn`);
      }
      if (mine.fingerprint !== fingerprint) {
        await this.#replace(mine, fingerprint, create);
        use = { session: await mine.session, origin: "new", previousEnd: "tools-changed" };
      } else {
        use = await this.#firstUse(mine);
      }
      return work(use);
    });
    mine.tail = turn.catch(() => {});
    try {
      return await turn;
    } finally {
      mine.busy -= 1;
      mine.lastUsed = ++this.#uses;
      if (mine.busy === 0 && this.#entries.get(key) === mine) this.#armIdle(mine);
    }
  }

  /** Ends `key`'s session (see `#end` for a cell running in it); false when it has none. */
  async end(key: string): Promise<boolean> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    await this.#end(entry, "ended");
    return true;
  }

  /** Ends every session and refuses further calls; resolves once all of them are closed. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.values()].map((entry) => this.#end(entry, "ended")));
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new CodecallError("SESSION_CLOSED", "The session pool is closed");
  }

  /** Holds a slot for `key` (making room if needed) and starts making its session. */
  #open(key: string, fingerprint: string, create: () => Promise<S>): Entry<S> {
    if (this.#entries.size >= this.maxSessions) {
      const idlest = [...this.#entries.values()].filter((entry) => entry.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idlest === undefined) {
        throw new CodecallError(
          "SESSION_LIMIT",
          `All ${this.maxSessions} sessions are running cells; try again when one has finished (or raise maxSessions)`,
          { details: { maxSessions: this.maxSessions } },
        );
      }
      void this.#end(idlest, "evicted");
    }
    const entry: Entry<S> = {
      key,
      fingerprint,
      session: this.#create(create),
      busy: 0,
      used: false,
      lastUsed: ++this.#uses,
      tail: Promise.resolve(),
    };
    this.#entries.set(key, entry);
    // A session that cannot be made holds no slot: the next call of the key tries again.
    entry.session.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return entry;
  }

  /** Whether this is the entry's first call (a new session), and why the key's last one ended. */
  async #firstUse(entry: Entry<S>): Promise<PooledUse<S>> {
    const session = await entry.session;
    if (entry.used) return { session, origin: "existing" };
    entry.used = true;
    const previousEnd = this.#ended.get(entry.key);
    this.#ended.delete(entry.key);
    return previousEnd === undefined ? { session, origin: "new" } : { session, origin: "new", previousEnd };
  }

  async #replace(entry: Entry<S>, fingerprint: string, create: () => Promise<S>): Promise<void> {
    const old = entry.session;
    entry.fingerprint = fingerprint;
    entry.session = this.#create(create);
    entry.used = true;
    void this.#track(old.then((session) => session.close()));
    await entry.session.catch((error: unknown) => {
      if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
      throw error;
    });
  }

  #create(create: () => Promise<S>): Promise<S> {
    try {
      return Promise.resolve(create());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  #armIdle(entry: Entry<S>): void {
    if (this.idleMs === Infinity) return;
    entry.idleTimer = setLongTimeout(
      () => {
        if (entry.busy === 0 && this.#entries.get(entry.key) === entry) void this.#end(entry, "idle");
      },
      this.idleMs,
      { unref: true },
    );
  }

  /**
   * Frees the slot and closes the session now: a cell still running in it ends as the session's
   * `close()` ends cells, and calls waiting their turn are refused (`SESSION_CLOSED`).
   */
  async #end(entry: Entry<S>, reason: SessionEndReason): Promise<void> {
    entry.idleTimer?.clear();
    if (this.#entries.get(entry.key) === entry) {
      this.#entries.delete(entry.key);
      this.#remember(entry.key, reason);
    }
    await this.#track(entry.session.then((session) => session.close()));
  }

  #remember(key: string, reason: SessionEndReason): void {
    this.#ended.delete(key);
    this.#ended.set(key, reason);
    if (this.#ended.size > REMEMBERED_ENDS) this.#ended.delete(this.#ended.keys().next().value as string);
  }

  /** Counts a closing session until it is closed; a session that fails to close is gone all the same. */
  #track(closing: Promise<void>): Promise<void> {
    const settled = closing.catch(() => {});
    this.#closing.add(settled);
    void settled.then(() => this.#closing.delete(settled));
    return settled;
  }
}
