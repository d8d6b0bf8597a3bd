/**
 * The commands an environment started that still run: each one's `timeoutMs` and abort signal
 * armed while it runs, and all of them killed when the environment closes. One implementation for
 * host processes (local, the apptainer CLI) and remote ones (ExecEnvironment).
 */
import type { ProcessExit, SpawnOptions } from "../environment.js";
import { setLongTimeout } from "../timers/long-timeout.js";

/** Grace between SIGTERM and SIGKILL when a command's `timeoutMs` runs out. */
const TIMEOUT_GRACE_MS = 2_000;

/** A started command that a timeout and an abort can end. */
export interface WatchedProcess {
  /** Ends it because its time ran out (TERM, KILL after `graceMs`), marking it timed out. */
  expire(graceMs: number): Promise<void>;
  kill(): Promise<void>;
  /** Settles (or rejects, when the backend lost it) once it has ended. */
  wait(): Promise<ProcessExit>;
}

export class LiveProcesses<P extends WatchedProcess> {
  readonly #live = new Set<P>();

  /** Arms `options.timeoutMs` and `options.signal` for `process` and keeps it until it ends. */
  add(process: P, options: Pick<SpawnOptions, "timeoutMs" | "signal"> = {}): P {
    this.#live.add(process);
    const cleanups: (() => void)[] = [];
    if (options.timeoutMs !== undefined) {
      const timer = setLongTimeout(() => void process.expire(TIMEOUT_GRACE_MS), options.timeoutMs);
      cleanups.push(() => timer.clear());
    }
    const signal = options.signal;
    if (signal) {
      const onAbort = () => void process.kill();
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener("abort", onAbort));
    }
    const done = () => {
      this.#live.delete(process);
      for (const cleanup of cleanups) cleanup();
    };
    process.wait().then(done, done);
    return process;
  }

  /** Kills every command still running; a kill that fails does not stop the others. */
  async killAll(): Promise<void> {
    await Promise.all([...this.#live].map((process) => process.kill().catch(() => {})));
  }
}
