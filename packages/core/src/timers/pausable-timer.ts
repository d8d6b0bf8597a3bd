/**
 * A timer that can be paused: the script's time limit, which stops running while any of its tool
 * calls waits for approval (a person deciding is not the script's time). Holds nest: the timer
 * runs only while nobody holds it, and resumes with the time it had left when the first hold began.
 * A hold may come before the timer is started (a call cannot, in practice, but the order of two
 * independent steps must not matter); the timer then starts paused.
 */
import { setLongTimeout, type LongTimeout } from "./long-timeout.js";

export class PausableTimer {
  #callback: (() => void) | undefined;
  #remainingMs = 0;
  /** When the running stretch began (performance.now()), while the timer runs. */
  #runningSince: number | undefined;
  #timer: LongTimeout | undefined;
  #holds = 0;
  #pausedMs = 0;
  #pausedSince: number | undefined;
  #finished = false;

  /** Starts the countdown of `ms` milliseconds; `callback` runs once when it reaches zero. */
  start(ms: number, callback: () => void): void {
    if (this.#callback !== undefined) throw new Error("PausableTimer.start() may be called once");
    this.#callback = callback;
    this.#remainingMs = ms;
    if (this.#holds === 0) this.#run();
  }

  /** Pauses the countdown until the returned release is called (idempotent). */
  hold(): () => void {
    this.#holds += 1;
    if (this.#holds === 1) this.#pause();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      if (this.#holds === 0) this.#resume();
    };
  }

  /** Stops the timer for good; the callback will not run. */
  clear(): void {
    this.#finished = true;
    this.#timer?.clear();
    this.#timer = undefined;
  }

  /** Total time the countdown has been held so far. */
  get pausedMs(): number {
    return this.#pausedMs + (this.#pausedSince === undefined ? 0 : performance.now() - this.#pausedSince);
  }

  #run(): void {
    if (this.#finished || this.#callback === undefined) return;
    this.#runningSince = performance.now();
    const callback = this.#callback;
    this.#timer = setLongTimeout(
      () => {
        this.#finished = true;
        callback();
      },
      Math.max(0, this.#remainingMs),
    );
  }

  #pause(): void {
    this.#pausedSince = performance.now();
    if (this.#runningSince === undefined || this.#finished) return;
    this.#timer?.clear();
    this.#timer = undefined;
    this.#remainingMs -= this.#pausedSince - this.#runningSince;
    this.#runningSince = undefined;
  }

  #resume(): void {
    if (this.#pausedSince !== undefined) this.#pausedMs += performance.now() - this.#pausedSince;
    this.#pausedSince = undefined;
    this.#run();
  }
}
