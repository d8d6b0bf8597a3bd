/**
 * Stopping a session's cell: its time limit or its abort signal interrupts it (KeyboardInterrupt
 * in the kernel), and a kernel that has not answered when the kill grace is over is killed — the
 * one case in which the session's state is lost.
 */
import { errorMessage } from "../errors.js";
import type { PausableTimer } from "../timers/pausable-timer.js";

export interface CellStopOptions {
  /** The cell's time limit (approvals pause it). */
  timeLimit: PausableTimer;
  timeoutMs: number;
  /** How long the kernel has to answer the interrupt. */
  killGraceMs: number;
  signal: AbortSignal | undefined;
  /** Called once, as the cell must stop (cancel its tool calls). */
  onStopping: (reason: "timeout" | "interrupted") => void;
  interrupt: () => void;
  kill: () => void;
}

export class CellStop {
  readonly #options: CellStopOptions;
  #reason: "exited" | "timeout" | "interrupted" = "exited";
  #interruptReason: string | undefined;
  #killed = false;
  #grace: ReturnType<typeof setTimeout> | undefined;

  constructor(options: CellStopOptions) {
    this.#options = options;
  }

  /** Why the cell stopped: `exited` when nothing stopped it. */
  get reason(): "exited" | "timeout" | "interrupted" {
    return this.#reason;
  }

  /** The abort reason, when it was given as text or an Error. */
  get interruptReason(): string | undefined {
    return this.#interruptReason;
  }

  /** True when the kernel did not answer the interrupt in time and was killed. */
  get killed(): boolean {
    return this.#killed;
  }

  /** Starts the time limit and listens to the signal; call once the cell has been sent. */
  arm(): void {
    const { signal } = this.#options;
    this.#options.timeLimit.start(this.#options.timeoutMs, () => this.#stop("timeout"));
    if (signal?.aborted) this.#onAbort();
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** The cell has ended: no more stops, and no kill. */
  disarm(): void {
    this.#options.timeLimit.clear();
    clearTimeout(this.#grace);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
  }

  readonly #onAbort = (): void => {
    const cause: unknown = this.#options.signal?.reason;
    if (typeof cause === "string" || cause instanceof Error) this.#interruptReason = errorMessage(cause);
    this.#stop("interrupted");
  };

  #stop(why: "timeout" | "interrupted"): void {
    if (this.#reason !== "exited") return;
    this.#reason = why;
    this.#options.onStopping(why);
    this.#options.interrupt();
    this.#grace = setTimeout(() => {
      this.#killed = true;
      this.#options.kill();
    }, this.#options.killGraceMs);
  }
}
