/**
 * Notices a sandbox that went away under running commands. A deleted or stopped sandbox does not
 * always end the requests and log streams that were open to it: a proxy may keep them open and
 * silent. So while commands run and nothing arrives for an interval, one check asks Daytona
 * about the sandbox — one call per environment, not per command — and a sandbox that is gone
 * fails every running command with the reason. A command whose log stream went quiet for a few
 * intervals is also asked to look whether the daemon says it ended (a stream that died silently).
 * The timer is unref'd and runs only while commands do.
 */
import type { CodecallError } from "@codecall/core";

/** A running command, as the watch sees it. */
export interface WatchedCommand {
  /** `performance.now()` of the last output that arrived. */
  readonly lastActivity: number;
  /** Fails the command: its sandbox is gone. */
  lost(error: CodecallError): void;
  /** The command's stream went quiet: check with the daemon whether it ended. Never rejects. */
  poke(): Promise<void>;
}

/** Quiet intervals after which a command is poked. */
const POKE_AFTER_INTERVALS = 3;

export class LivenessWatch {
  readonly #intervalMs: number;
  readonly #check: () => Promise<CodecallError | undefined>;
  readonly #commands = new Set<WatchedCommand>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking = false;

  /** `check` answers why the sandbox cannot run commands any more, or undefined while it can. */
  constructor(intervalMs: number, check: () => Promise<CodecallError | undefined>) {
    this.#intervalMs = intervalMs;
    this.#check = check;
  }

  add(command: WatchedCommand): void {
    this.#commands.add(command);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#tick(), this.#intervalMs);
      this.#timer.unref?.();
    }
  }

  delete(command: WatchedCommand): void {
    this.#commands.delete(command);
    if (this.#commands.size === 0) this.stop();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #tick(): Promise<void> {
    if (this.#checking) return;
    const now = performance.now();
    const quiet = [...this.#commands].filter((command) => now - command.lastActivity >= this.#intervalMs);
    if (quiet.length === 0) return;
    this.#checking = true;
    try {
      const problem = await this.#check();
      if (problem) {
        for (const command of [...this.#commands]) command.lost(problem);
        return;
      }
      const stale = quiet.filter((command) => now - command.lastActivity >= this.#intervalMs * POKE_AFTER_INTERVALS);
      await Promise.all(stale.map((command) => command.poke()));
    } finally {
      this.#checking = false;
    }
  }
}
