/**
 * The local backend: commands run as child processes of the host, through `/bin/sh`, each in its
 * own process group. Timeouts, aborts and `close()` end whole process trees.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ENVIRONMENT_SPECIFICATION_VERSION,
  CodecallError,
  type Environment,
  type EnvironmentCapabilities,
  type ExecOptions,
  type ExecResult,
  type ReadFileOptions,
  type SpawnOptions,
  type WriteFileOptions,
} from "@codecall/core";
import { collectProcess, debugLogger, describeCommand, describeExit, LiveProcesses, toExecResult, type HostProcess } from "@codecall/core/plugin-kit";
import { environmentOptions, type LocalEnvironmentOptions } from "./local-options.js";
import { startLocalProcess } from "./local-process.js";
import { openLocalFileWriter, writeLocalFile } from "./local-file-writer.js";
import { readLocalFile } from "./read-local-file.js";

const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: true, streamingStdio: true });

const log = debugLogger("backend");

export class LocalEnvironment implements Environment {
  readonly specificationVersion = ENVIRONMENT_SPECIFICATION_VERSION;
  readonly backendId = "local";
  readonly capabilities = CAPABILITIES;
  readonly #cwd: string;
  readonly #env: Readonly<Record<string, string>>;
  readonly #shell: string;
  readonly #tempRoot: string;
  readonly #live = new LiveProcesses<HostProcess>();
  #closed = false;

  /** Checks `options` against {@link environmentOptions} (throws `INVALID_OPTIONS`). */
  constructor(options: LocalEnvironmentOptions = {}) {
    const parsed = environmentOptions.parse(options);
    this.#cwd = path.resolve(parsed.cwd ?? process.cwd());
    this.#env = parsed.env ?? definedOnly(process.env);
    this.#shell = parsed.shell;
    this.#tempRoot = parsed.tempRoot ?? tmpdir();
  }

  async execute(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const process = await this.spawn(command, options);
    const collected = await collectProcess(process, {
      // A local pipe's write fails only when the process closed its stdin: its choice.
      undeliveredStdin: "ignore",
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    });
    return toExecResult(collected, process.timedOut);
  }

  /** Local processes are independent, so this is `execute`. */
  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.execute(command, options);
  }

  async spawn(command: string, options: SpawnOptions = {}): Promise<HostProcess> {
    this.#assertOpen();
    const cwd = options.cwd === undefined ? this.#cwd : this.resolve(options.cwd);
    await assertDirectory(cwd);
    const env = options.clearEnv ? (options.env ?? {}) : { ...this.#env, ...options.env };
    const started = performance.now();
    // Given `whenTreeHeld`, the command itself is one that ends its tree (codecall's launcher).
    const treeHeld = options.whenTreeHeld !== undefined;
    const process = await startLocalProcess(this.#shell, ["-c", command], { cwd, env, treeHeld });
    log(() => `local pid ${process.pid}: ${describeCommand(command, { ...options, cwd })}`);
    void process.wait().then((exit) => log(() => `local pid ${process.pid}: ${describeExit(exit, started)}`));
    return this.#live.add(process, options);
  }

  async writeFile(filePath: string, data: Uint8Array | string, options: WriteFileOptions = {}): Promise<void> {
    this.#assertOpen();
    await writeLocalFile(this.resolve(filePath), data, options);
  }

  async openFileWriter(filePath: string, options?: WriteFileOptions): Promise<WritableStream<Uint8Array>> {
    this.#assertOpen();
    return openLocalFileWriter(this.resolve(filePath), options);
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
    await this.#live.killAll();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * `filePath` made absolute against the environment's working directory. A trailing "/" is kept:
   * it says the path is a directory (writing "out/" must fail as it does in a shell, not create a
   * file named "out").
   */
  resolve(filePath: string): string {
    const resolved = path.resolve(this.#cwd, filePath);
    return filePath.endsWith("/") && resolved !== "/" ? `${resolved}/` : resolved;
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

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
