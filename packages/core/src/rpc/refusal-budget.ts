/**
 * What refusing requests may cost the host in one run. A refused request costs the host as much as
 * a dispatched one up to the refusal (reading, measuring and parsing a frame of up to the frame
 * limit, validating its arguments) but counts against no tool-call budget: without a bound, a
 * script that sends invalid 16 MiB frames in a loop keeps a host core busy until its time limit.
 * Once refused requests have taken the budget, every later request of the run is answered unread.
 */

/** Bytes of refused requests one run may send, in frames of the run's limit (256 MiB by default). */
export const REFUSED_FRAMES_PER_RUN = 16;
/**
 * Least a refusal counts, whatever its size: answering one costs the host a round of work of its
 * own, so a flood of tiny refused requests is bounded too (a quarter of a million by default).
 */
export const MIN_REFUSAL_BYTES = 1024;

/** The bytes of refused requests a run has left. */
export class RefusalBudget {
  /** Bytes of refused requests the run may send. */
  readonly limit: number;
  #taken = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** True once refused requests have taken the whole budget: from then on every request is refused unread. */
  get exhausted(): boolean {
    return this.#taken >= this.limit;
  }

  /**
   * Once the budget is spent, the notice the result carries for the model (`what`: "run", "cell"),
   * which may not have seen the script's errors; undefined before.
   */
  notice(what: string): string | undefined {
    if (!this.exhausted) return undefined;
    return (
      `⚠ The host stopped reading this ${what}'s tool calls after ${this.limit} bytes of refused requests (malformed frames, ` +
      `unknown tools, invalid arguments, calls over the limit): every call after that failed with "Request refused". ` +
      `Read the errors the calls got and fix the calls instead of repeating them.`
    );
  }

  /** Counts one refused request of `bytes` bytes (at least {@link MIN_REFUSAL_BYTES}). */
  charge(bytes: number): void {
    this.#taken += Math.max(bytes, MIN_REFUSAL_BYTES);
  }
}
