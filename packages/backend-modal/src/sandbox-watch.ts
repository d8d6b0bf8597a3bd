/**
 * Notices that a sandbox has ended — terminated from elsewhere, out of lifetime, or its main
 * process gone — and aborts `lost` with an error that says which. The SDK does not: once a
 * sandbox is gone its command router is unreachable, and the SDK retries a command's wait on it
 * forever, so a running command would hang instead of failing. While commands run, the sandbox is
 * polled every {@link WATCH_INTERVAL_MS} (an unref'd timer); a failed SDK call, or a command
 * starting after a quiet spell, asks for a check at once.
 */
import { CodecallError, errorMessage } from "@codecall/core";
import { debugLogger } from "@codecall/core/backend-kit";
import type { Sandbox } from "modal";
import { isNotFound } from "./modal-errors.js";

/** How often a sandbox with running commands is checked. */
export const WATCH_INTERVAL_MS = 2_000;

/** `Sandbox.poll()`'s codes for a sandbox Modal ended (the SDK maps its TIMEOUT and TERMINATED results to these). */
const TIMED_OUT_CODE = 124;
const TERMINATED_CODE = 137;

const log = debugLogger("backend");

/** Why the sandbox `id` is gone, from `poll()`'s exit code. */
function endedBecause(id: string, exitCode: number): string {
  if (exitCode === TIMED_OUT_CODE) return `the Modal sandbox ${id} timed out (its lifetime ran out)`;
  if (exitCode === TERMINATED_CODE) return `the Modal sandbox ${id} was terminated`;
  return `the Modal sandbox ${id} has ended (its main process exited with code ${exitCode})`;
}

export class SandboxWatch {
  readonly #sandbox: Sandbox;
  readonly #lost: AbortController;
  #holders = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking: Promise<void> | undefined;
  #lastCheck = Date.now();

  constructor(sandbox: Sandbox, lost: AbortController) {
    this.#sandbox = sandbox;
    this.#lost = lost;
  }

  /** Asks Modal whether the sandbox still runs (one check at a time); aborts `lost` when it does not. Never rejects. */
  check(): Promise<void> {
    this.#checking ??= this.#poll().finally(() => {
      this.#checking = undefined;
      this.#lastCheck = Date.now();
    });
    return this.#checking;
  }

  /** A command is starting: checks at once when the last check is older than the interval. */
  touch(): void {
    if (Date.now() - this.#lastCheck > WATCH_INTERVAL_MS) void this.check();
  }

  /** A command runs: the sandbox is polled until every holder has released. Returns the release (idempotent). */
  hold(): () => void {
    this.#holders += 1;
    this.#timer ??= setInterval(() => void this.check(), WATCH_INTERVAL_MS);
    this.#timer.unref?.();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holders -= 1;
      if (this.#holders === 0) this.stop();
    };
  }

  /** Stops polling (close). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#lost.signal.aborted) return;
    const id = this.#sandbox.sandboxId;
    try {
      const exitCode = await this.#sandbox.poll();
      if (exitCode === null || this.#lost.signal.aborted) return;
      const reason = endedBecause(id, exitCode);
      log(() => `modal: ${reason}`);
      this.#lost.abort(new CodecallError("ENVIRONMENT_FAILED", reason, { details: { sandboxId: id, exitCode } }));
    } catch (error) {
      if (isNotFound(error)) {
        this.#lost.abort(
          new CodecallError("ENVIRONMENT_FAILED", `the Modal sandbox ${id} no longer exists`, { cause: error, details: { sandboxId: id } }),
        );
        return;
      }
      // Modal itself unreachable for a moment: the commands' own calls will tell.
      log(() => `modal: could not check sandbox ${id}: ${errorMessage(error)}`);
    }
  }
}
