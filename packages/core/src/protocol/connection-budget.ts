/**
 * What the host holds for one run's byte-stream connections (sockets, relayed connections),
 * bounded for the run as a whole. Each connection is bounded on its own (one unfinished frame, a
 * window of answers, a few running calls), but a guest may open as many connections as it likes:
 * without a bound per run, a script that opens hundreds and leaves a large unfinished frame in each
 * grows the host without limit, and one that opens thousands takes the host's descriptors.
 */

/**
 * Connections one run may have open at once. A pool of worker processes has one each, and a
 * script may fork hundreds (the Docker suite answers 200 at once in a 512-process container), so
 * the bound sits above what a process limit allows in practice while still keeping a run's
 * descriptors to a fixed number.
 */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Unfinished frames one run's connections may hold in all, in frames of the run's limit. */
export const UNFINISHED_FRAMES_PER_RUN = 4;

/** Bytes a frame decoder may hold; shared by every decoder of a run. */
export interface ByteBudget {
  /** Takes `bytes`; false (and nothing taken) when that would pass the bound. */
  take(bytes: number): boolean;
  /** Gives back bytes taken before. */
  give(bytes: number): void;
  /** Bytes taken now. */
  readonly taken: number;
  /** The bound. */
  readonly limit: number;
}

export class ConnectionBudget {
  /** Connections the run may have open at once. */
  readonly maxConnections: number;
  /** Bytes of unfinished frames the run's connections may hold in all. */
  readonly unfinishedFrames: ByteBudget;
  #open = 0;

  constructor(maxConnections: number, maxUnfinishedBytes: number) {
    this.maxConnections = maxConnections;
    let taken = 0;
    this.unfinishedFrames = {
      take: (bytes) => {
        if (taken + bytes > maxUnfinishedBytes) return false;
        taken += bytes;
        return true;
      },
      give: (bytes) => void (taken -= bytes),
      get taken() {
        return taken;
      },
      limit: maxUnfinishedBytes,
    };
  }

  /** Counts a connection in; false when the run already has as many as it may. */
  admit(): boolean {
    if (this.#open >= this.maxConnections) return false;
    this.#open += 1;
    return true;
  }

  /** Counts an admitted connection out. */
  leave(): void {
    this.#open -= 1;
  }

  /** Connections open now. */
  get open(): number {
    return this.#open;
  }
}
