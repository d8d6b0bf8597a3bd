/**
 * The local backend: commands run as child processes of the host, through `/bin/sh`, each in its
 * own process group. Timeouts, aborts and `close()` end whole process trees.
 */
import { spawn as spawnChild } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  CodecallError,
  collectProcess,
  newRunId,
  setLongTimeout,
  toExecResult,
  TREE_TAG_VARIABLE,
  type Environment,
  type EnvironmentCapabilities,
  type ExecOptions,
  type ExecResult,
  type ReadFileOptions,
  type SpawnOptions,
  type WriteFileOptions,
} from "@codecall/core";
import { LocalProcess } from "./local-process.js";
import { readLocalFile } from "./read-local-file.js";

export interface LocalEnvironmentOptions {
  /** Default working directory of commands and base of relative paths (default: `process.cwd()`). */
  cwd?: string;
  /** Variables commands get by default (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The POSIX shell that runs command strings (default `/bin/sh`). */
  shell?: string;
  /** Where `tempDir()` creates directories (default: the OS temp dir). */
  tempRoot?: string;
}

/** Grace between SIGTERM and SIGKILL when a command's `timeoutMs` runs out. */
const TIMEOUT_GRACE_MS = 2_000;

const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: true, streamingStdio: true });

export class LocalEnvironment implements Environment {
  readonly backendId = "local";
  readonly capabilities = CAPABILITIES;
  readonly #cwd: string;
  readonly #env: Readonly<Record<string, string>>;
  readonly #shell: string;
  readonly #tempRoot: string;
  readonly #live = new Set<LocalProcess>();
  #closed = false;

  constructor(options: LocalEnvironmentOptions = {}) {
    this.#cwd = path.resolve(options.cwd ?? process.cwd());
    this.#env = definedOnly(options.env ?? process.env);
    this.#shell = options.shell ?? "/bin/sh";
    this.#tempRoot = options.tempRoot ?? tmpdir();
  }

  async execute(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const process = await this.spawn(command, options);
    const collected = await collectProcess(process, {
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    });
    return toExecResult(collected, process.timedOut);
  }

  /** Local processes are independent, so this is `execute`. */
  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.execute(command, options);
  }

  async spawn(command: string, options: SpawnOptions = {}): Promise<LocalProcess> {
    this.#assertOpen();
    const cwd = options.cwd === undefined ? this.#cwd : this.resolve(options.cwd);
    await assertDirectory(cwd);
    const tag = newRunId();
    const child = spawnChild(this.#shell, ["-c", command], {
      cwd,
      // The tree tag lets a kill find the processes that leave the group (see process-tree.ts).
      env: { ...(options.clearEnv ? options.env : { ...this.#env, ...options.env }), [TREE_TAG_VARIABLE]: tag },
      // A new session: the command leads its own process group, so the tree can be signalled at once.
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) =>
        reject(new CodecallError("ENVIRONMENT_FAILED", `Could not start ${this.#shell}: ${error.message}`, { cause: error })),
      );
    });
    const process = new LocalProcess(child, tag);
    this.#track(process, options);
    return process;
  }

  async writeFile(filePath: string, data: Uint8Array | string, options: WriteFileOptions = {}): Promise<void> {
    this.#assertOpen();
    const target = this.resolve(filePath);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data, options.mode === undefined ? {} : { mode: options.mode });
    // `mode` only applies when the file is created; an existing file keeps its own without this.
    if (options.mode !== undefined) await chmod(target, options.mode);
  }

  async readFile(filePath: string, options?: ReadFileOptions): Promise<Uint8Array> {
    this.#assertOpen();
    return readLocalFile(this.resolve(filePath), options);
  }

  async tempDir(): Promise<string> {
    this.#assertOpen();
    // mkdtemp creates the directory with mode 0700.
    return mkdtemp(path.join(this.#tempRoot, "codecall-"));
  }

  async remove(filePath: string): Promise<void> {
    this.#assertOpen();
    await rm(this.resolve(filePath), { recursive: true, force: true });
  }

  async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return this.#env;
  }

  /** Kills every process this environment started that is still running. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#live].map((process) => process.kill()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** `filePath` made absolute against the environment's working directory. */
  resolve(filePath: string): string {
    return path.resolve(this.#cwd, filePath);
  }

  #track(process: LocalProcess, options: SpawnOptions): void {
    this.#live.add(process);
    const cleanups: (() => void)[] = [];
    if (options.timeoutMs !== undefined) {
      const timer = setLongTimeout(() => void process.expire(TIMEOUT_GRACE_MS), options.timeoutMs);
      cleanups.push(() => timer.clear());
    }
    if (options.signal) {
      const signal = options.signal;
      const onAbort = () => void process.kill();
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener("abort", onAbort));
    }
    void process.wait().then(() => {
      this.#live.delete(process);
      for (const cleanup of cleanups) cleanup();
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This local environment is closed");
  }
}

/** Creates a local environment (the backend entry point the resolver calls). */
export function createEnvironment(options: LocalEnvironmentOptions = {}): LocalEnvironment {
  return new LocalEnvironment(options);
}

async function assertDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new CodecallError("INVALID_PATH", `Working directory does not exist: ${dir}`, { details: { cwd: dir } });
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
