/**
 * A child process started in its own process group (its own session, in fact), so that a timeout,
 * a kill or the end of the command reaches its whole tree: grandchildren, and — on Linux — also
 * descendants that started a session of their own, even after a double fork (found by tree tag).
 */
import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { EnvironmentProcess, KillOptions, ProcessExit } from "@codecall/core";
import { delay } from "@codecall/core/backend-kit";
import { toWebReadable, toWebWritable } from "./node-streams.js";
import { findTree, groupAlive, signalAll } from "./process-tree.js";

/** How often a kill checks whether the tree is gone during the grace period. */
const KILL_POLL_MS = 25;

export class LocalProcess implements EnvironmentProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly #pid: number;
  /** The value of CODECALL_TREE in the tree's env. */
  readonly #tag: string;
  readonly #exit: Promise<ProcessExit>;
  #exited = false;
  /** Set once leftovers were swept after the exit: the pgid may be reused later, never signal it again. */
  #reaped = false;
  #killing: Promise<void> | undefined;
  #timedOut = false;

  constructor(child: ChildProcess, tag: string) {
    if (child.pid === undefined) throw new Error("child process has no pid");
    this.#pid = child.pid;
    this.#tag = tag;
    this.stdin = toWebWritable(child.stdin!);
    this.stdout = toWebReadable(child.stdout!);
    this.stderr = toWebReadable(child.stderr!);
    this.#exit = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.#exited = true;
        // The command is over: end what it left running so its pipes close and nothing outlives it.
        void this.#sweepLeftovers().finally(() => resolve(toProcessExit(code, signal)));
      });
    });
  }

  get pid(): number {
    return this.#pid;
  }

  /** True when the process was ended by {@link expire}. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Ends the tree because its time ran out (unless it already exited). */
  expire(graceMs: number): Promise<void> {
    if (!this.#exited) this.#timedOut = true;
    return this.kill({ graceMs });
  }

  wait(): Promise<ProcessExit> {
    return this.#exit;
  }

  /** SIGTERM to the tree, SIGKILL after `graceMs` for whatever is left (at once when 0). */
  kill(options: KillOptions = {}): Promise<void> {
    if (this.#reaped) return Promise.resolve();
    this.#killing ??= this.#killTree(options.graceMs ?? 0);
    return this.#killing;
  }

  async #killTree(graceMs: number): Promise<void> {
    if (graceMs > 0) {
      signalAll(this.#pid, await findTree(this.#pid, this.#tag), "SIGTERM");
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && (!this.#exited || groupAlive(this.#pid))) await delay(KILL_POLL_MS);
    }
    if (!this.#reaped) signalAll(this.#pid, await findTree(this.#pid, this.#tag), "SIGKILL");
    await this.#exit;
  }

  async #sweepLeftovers(): Promise<void> {
    // The leader is gone, so its orphans now belong to init: the group finds those that stayed in
    // it, the tree tag those that left it (setsid, double fork) — on every exit, not only a kill,
    // so a daemonised helper never outlives its command.
    signalAll(this.#pid, await findTree(undefined, this.#tag), "SIGKILL");
    this.#reaped = true;
  }
}

function toProcessExit(code: number | null, signal: NodeJS.Signals | null): ProcessExit {
  if (signal) return { exitCode: 128 + (constants.signals[signal] ?? 0), signal };
  return { exitCode: code ?? 1 };
}
