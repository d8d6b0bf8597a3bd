/**
 * Daytona sessions kept for reuse. A session is one shell in the sandbox that runs the commands
 * sent to it one after another — a second command waits for the first — so every running command
 * takes a session of its own, and an idle one is reused: a command then costs no session calls.
 * The daemon keeps every command's log and record until its session is deleted, so a session is
 * retired (deleted, in the background) after a fixed number of commands.
 */
import { debugLogger, newRunId } from "@codecall/core/backend-kit";
import type { SandboxProcess } from "./daytona-sdk.js";

/** Commands a session runs before it is replaced, bounding what the daemon keeps of them. */
const COMMANDS_PER_SESSION = 100;

const log = debugLogger("backend");

export class SessionPool {
  readonly #process: SandboxProcess;
  readonly #prefix = `codecall-${newRunId()}`;
  readonly #idle: string[] = [];
  readonly #uses = new Map<string, number>();
  #created = 0;
  #closed = false;

  constructor(process: SandboxProcess) {
    this.#process = process;
  }

  /** An idle session, or a new one. */
  async acquire(): Promise<string> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return this.#use(idle);
    const id = `${this.#prefix}-${(this.#created += 1)}`;
    await this.#process.createSession(id);
    log(() => `daytona: session ${id} created`);
    return this.#use(id);
  }

  /** The command in `id` ended and the session is fine: it may run the next one. */
  release(id: string): void {
    if (this.#closed || (this.#uses.get(id) ?? 0) >= COMMANDS_PER_SESSION) this.discard(id);
    else this.#idle.push(id);
  }

  /** The session is not to be used again (its command was lost, or it ran its share): deleted in the background. */
  discard(id: string): void {
    this.#uses.delete(id);
    this.#process.deleteSession(id).then(
      () => log(() => `daytona: session ${id} deleted`),
      () => {},
    );
  }

  /** Deletes the idle sessions (a sandbox we keep must not collect ours); later releases delete theirs. */
  async close(): Promise<void> {
    this.#closed = true;
    const idle = this.#idle.splice(0);
    await Promise.all(idle.map((id) => this.#process.deleteSession(id).catch(() => {})));
    for (const id of idle) this.#uses.delete(id);
  }

  #use(id: string): string {
    this.#uses.set(id, (this.#uses.get(id) ?? 0) + 1);
    return id;
  }
}
