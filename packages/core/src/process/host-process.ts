/**
 * A child process of the host, started in its own process group (its own session, in fact), so
 * that a timeout, a kill or the end of the command reaches its whole tree: grandchildren, and — on
 * Linux — also descendants that started a session of their own, even after a double fork (found by
 * tree tag, see process-tree.ts). The runtime spawns the child (Node's `child_process.spawn`,
 * detached) and hands it to {@link startHostProcess}; the rest is the same for every backend that
 * runs host processes (local, the apptainer CLI of singularity).
 */
import { delay } from "../timers/delay.js";
import type { EnvironmentProcess, KillOptions, ProcessExit } from "../environment.js";
import { CodecallError } from "../errors.js";
import { findProcessTree, groupAlive, signalProcesses, type ProcessHost, type TreeSignal } from "./process-tree.js";

/** How often a kill checks whether the tree is gone during the grace period. */
const KILL_POLL_MS = 25;

/**
 * A spawned child as Node's (and Bun's) `child_process.spawn` returns it, as far as this file uses
 * it: its events. Its stdio is handed over separately, already as Web streams.
 */
export interface SpawnedChild {
  readonly pid?: number | undefined;
  once(event: "spawn", listener: () => void): unknown;
  once(event: "error", listener: (error: Error) => void): unknown;
  once(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
}

/** The child's stdio as Web streams. */
export interface HostStdio {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
}

export interface StartHostProcessOptions {
  /** What was started, for the error when it cannot be ("Could not start /bin/sh: ..."). */
  file: string;
  /** The tree tag the child was spawned with (`CODECALL_TREE` in its env). */
  tag: string;
  /** The runtime's signals and process table. */
  host: ProcessHost;
  /**
   * The command ends its own tree when its first process exits. A spawn given
   * `SpawnOptions.whenTreeHeld` is one: its `command` (the one to run, not `whenTreeHeld.command`)
   * is codecall's launcher, so a backend that runs it passes `treeHeld: options.whenTreeHeld !==
   * undefined`. Then an exit of its own is followed only by a kill of its process group: the table
   * of every process on the host is read only after a kill, or an exit by a signal (the launcher may
   * have died before it ended the tree). A sweep costs milliseconds per command, tens on a busy host, and it would delay
   * every run's result.
   */
  treeHeld?: boolean;
}

/**
 * Waits until `child` (spawned detached, so it leads a process group, with `CODECALL_TREE=tag` in
 * its env) runs, and returns it as a {@link HostProcess}. Rejects with `ENVIRONMENT_FAILED` when it
 * could not be started.
 */
export async function startHostProcess(child: SpawnedChild, stdio: HostStdio, options: StartHostProcessOptions): Promise<HostProcess> {
  // Listening before the child can exit: the exit must not be missed.
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once("exit", (code, signal) => resolve(processExit(code, signal, options.host.signalNumbers))),
  );
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) => reject(notStarted(options.file, error)));
  });
  return new HostProcess(child.pid!, stdio, exited, options.tag, options.host, options.treeHeld);
}

export class HostProcess implements EnvironmentProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly #pid: number;
  /** The value of CODECALL_TREE in the tree's env. */
  readonly #tag: string;
  readonly #host: ProcessHost;
  /** See {@link StartHostProcessOptions.treeHeld}. */
  readonly #treeHeld: boolean;
  readonly #exit: Promise<ProcessExit>;
  #exited = false;
  /** Set once leftovers were swept after the exit: the pgid may be reused later, never signal it again. */
  #reaped = false;
  #killing: Promise<void> | undefined;
  #timedOut = false;

  /**
   * A running child that leads process group `pid`; `exited` settles when it exits. See
   * {@link startHostProcess} (`treeHeld`: {@link StartHostProcessOptions.treeHeld}).
   */
  constructor(pid: number, stdio: HostStdio, exited: Promise<ProcessExit>, tag: string, host: ProcessHost, treeHeld = false) {
    this.#pid = pid;
    this.#tag = tag;
    this.#host = host;
    this.#treeHeld = treeHeld;
    this.stdin = stdio.stdin;
    this.stdout = stdio.stdout;
    this.stderr = stdio.stderr;
    this.#exit = exited.then(async (exit) => {
      this.#exited = true;
      // The command is over: end what it left running so its pipes close and nothing outlives it.
      await this.#sweepLeftovers(exit);
      return exit;
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
      await this.#signalTree(this.#pid, "SIGTERM");
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && (!this.#exited || groupAlive(this.#host, this.#pid))) await delay(KILL_POLL_MS);
    }
    if (!this.#reaped) await this.#signalTree(this.#pid, "SIGKILL");
    await this.#exit;
  }

  async #sweepLeftovers(exit: ProcessExit): Promise<void> {
    if (this.#treeHeld && this.#killing === undefined && exit.signal === undefined) {
      // The command ended its tree itself before it exited; the group kill costs nothing. A death by
      // a signal may be the launcher's own (SIGKILL, or a signal whose default ends it, such as
      // SIGUSR1 from the script) before it could: that is swept.
      signalProcesses(this.#host, this.#pid, [], "SIGKILL");
    } else {
      // The leader is gone, so its orphans now belong to init: the group finds those that stayed in
      // it, the tree tag those that left it (setsid, double fork) — on every exit, not only a kill,
      // so a daemonised helper never outlives its command.
      await this.#signalTree(undefined, "SIGKILL").catch(() => {});
    }
    this.#reaped = true;
  }

  /** Signals the group and the rest of the tree (descendants of `root`, when given, and the tagged). */
  async #signalTree(root: number | undefined, signal: TreeSignal): Promise<void> {
    signalProcesses(this.#host, this.#pid, await findProcessTree(this.#host, root, this.#tag), signal);
  }
}

/**
 * Node reports a working directory that does not exist as ENOENT of the program ("spawn bash
 * ENOENT"), which sends one looking for the program: the message names both causes.
 */
function notStarted(file: string, error: Error): CodecallError {
  const missing = (error as { code?: unknown }).code === "ENOENT" ? " (the program is not on PATH, or the working directory does not exist)" : "";
  return new CodecallError("ENVIRONMENT_FAILED", `Could not start ${file}: ${error.message}${missing}`, { cause: error });
}

/** A child's exit as the Environment contract reports it: `code`, or 128 + the signal's number. */
function processExit(code: number | null, signal: string | null, signalNumbers: Readonly<Partial<Record<string, number>>>): ProcessExit {
  if (signal) return { exitCode: 128 + (signalNumbers[signal] ?? 0), signal };
  return { exitCode: code ?? 1 };
}
