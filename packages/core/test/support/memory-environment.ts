/**
 * An Environment in memory: files in a Map, and a `spawn` that runs the launcher command by
 * handing the script it names to a JavaScript {@link Guest}. It checks what a shell and Python
 * would — an interpreter that does not exist, a script that was never written — so a test of
 * `executeCode` fails when a step it relies on did not happen.
 */
import { CodecallError } from "../../src/errors.js";
import type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentProcess,
  ExecOptions,
  ExecResult,
  KillOptions,
  ProcessExit,
  SpawnOptions,
  WriteFileOptions,
} from "../../src/environment.js";
import { concatBytes } from "../../src/files/concat-bytes.js";
import { unpackStoredZip } from "./memory-archive.js";
import { importModule, type Guest, type GuestContext } from "./memory-guest.js";
import type { MemoryEndpoint, MemoryNetwork } from "./memory-wire.js";

export interface MemoryEnvironmentOptions {
  /** The environment's default env: what the env policy filters (default: PATH and HOME). */
  env?: Record<string, string>;
  /** Interpreter commands that exist (default `python3`). */
  interpreters?: readonly string[];
  /** Answers `execute`/`executeOneshot` (tools' commands); default: every command is not found. */
  commands?: (command: string, options: ExecOptions) => ExecResult;
  /**
   * How a write to `path` goes wrong, if it does: `fail` rejects (a dead environment), `hang` never
   * settles (one that stopped answering). Default: every write succeeds.
   */
  writeFault?: (path: string) => "fail" | "hang" | undefined;
  /**
   * Give the environment `openFileWriter`: the file grows in `files` as chunks are written.
   * `writeFault` then applies to opening, and `chunkFault` to the `index`th write of a file
   * (`slow`: it settles 5 ms later).
   */
  fileWriter?: { chunkFault?: (path: string, index: number) => "fail" | "hang" | "slow" | undefined };
}

/** One `spawn`, as the environment received it. */
export interface SpawnRecord {
  command: string;
  options: SpawnOptions;
  process: MemoryProcess;
}

/** `[export …; ]exec <interpreter> -c '<launcher>' [<archive>] <script>`, as `launchScriptCommand` builds it. */
const LAUNCH_COMMAND = /^(?:export [^;]*; )?exec (\S+) -c '[\s\S]*?'(?: (\S+))? (\S+)$/;

export class MemoryEnvironment implements Environment {
  readonly specificationVersion = "v1";
  readonly backendId = "memory";
  readonly capabilities: EnvironmentCapabilities = { hostSockets: false, streamingStdio: true };
  /** Files as text (what guests import); `#bytes` keeps what was written (archives, `readFile`). */
  readonly files = new Map<string, string>();
  readonly #bytes = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>();
  readonly spawned: SpawnRecord[] = [];
  readonly #network: MemoryNetwork;
  readonly #guest: Guest;
  readonly #options: MemoryEnvironmentOptions;
  #nextDir = 0;

  /** Present with the `fileWriter` option only, as a backend without it would not have it. */
  readonly openFileWriter?: (path: string, options?: WriteFileOptions) => Promise<WritableStream<Uint8Array>>;

  constructor(network: MemoryNetwork, guest: Guest, options: MemoryEnvironmentOptions = {}) {
    this.#network = network;
    this.#guest = guest;
    this.#options = options;
    const writer = options.fileWriter;
    if (writer !== undefined) this.openFileWriter = async (path) => this.#openWriter(path, writer.chunkFault);
  }

  async #openWriter(path: string, chunkFault: ((path: string, index: number) => "fail" | "hang" | "slow" | undefined) | undefined) {
    const fault = this.#options.writeFault?.(path);
    if (fault === "fail") throw new Error(`the environment is gone (opening ${path})`);
    if (fault === "hang") return new Promise<never>(() => {});
    const chunks: Uint8Array[] = [];
    this.#store(path, new Uint8Array(0));
    let index = 0;
    return new WritableStream<Uint8Array>({
      write: async (chunk) => {
        const fault = chunkFault?.(path, index++);
        if (fault === "fail") throw new Error(`the environment is gone (writing ${path})`);
        if (fault === "hang") return new Promise<never>(() => {});
        // A slow environment: the write settles a few milliseconds later.
        if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, 5));
        chunks.push(chunk.slice());
        this.#store(path, concatBytes(chunks));
      },
    });
  }

  async execute(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const answer = this.#options.commands ?? (() => ({ exitCode: 127, stdout: "", stderr: `sh: 1: ${command}: not found\n`, timedOut: false }));
    return answer(command, options);
  }

  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.execute(command, options);
  }

  async spawn(command: string, options: SpawnOptions = {}): Promise<EnvironmentProcess> {
    const launch = LAUNCH_COMMAND.exec(command);
    if (!launch) throw new Error(`the memory environment runs only the script launcher, not: ${command.slice(0, 80)}`);
    const [, interpreter = "", archivePath, scriptPath = ""] = launch;
    const env = options.clearEnv ? { ...options.env } : { ...(await this.defaultEnv()), ...options.env };
    const process = new MemoryProcess();
    this.spawned.push({ command, options, process });
    const known = (this.#options.interpreters ?? ["python3"]).includes(interpreter);
    if (known && archivePath !== undefined) this.#unpack(archivePath);
    const source = this.files.get(scriptPath);
    if (!known) process.fail(127, `sh: 1: exec: ${interpreter}: not found\n`);
    else if (source === undefined) process.fail(2, `${interpreter}: can't open file '${scriptPath}': [Errno 2] No such file or directory\n`);
    else process.run(this.#guest, { source, env, cwd: options.cwd, files: this.files, network: this.#network });
    return process;
  }

  async writeFile(path: string, data: Uint8Array | string, _options?: WriteFileOptions): Promise<void> {
    const fault = this.#options.writeFault?.(path);
    if (fault === "fail") throw new Error(`the environment is gone (writing ${path})`);
    if (fault === "hang") return new Promise<never>(() => {});
    this.#store(path, typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  #store(path: string, bytes: Uint8Array): void {
    this.#bytes.set(path, bytes);
    this.files.set(path, new TextDecoder().decode(bytes));
  }

  /** What the launcher does first: the archive's files, written beside it. */
  #unpack(archivePath: string): void {
    const archive = this.#bytes.get(archivePath);
    if (archive === undefined) throw new Error(`the launcher was given an archive that was never written: ${archivePath}`);
    const dir = archivePath.slice(0, archivePath.lastIndexOf("/"));
    for (const [name, data] of unpackStoredZip(archive)) this.#store(`${dir}/${name}`, data);
  }

  async readFile(path: string): Promise<Uint8Array> {
    const bytes = this.#bytes.get(path);
    if (bytes === undefined) throw new CodecallError("FILE_NOT_FOUND", `No such file: ${path}`);
    return bytes;
  }

  async tempDir(): Promise<string> {
    this.#nextDir += 1;
    const dir = `/mem/run-${this.#nextDir}`;
    this.dirs.add(dir);
    return dir;
  }

  async remove(path: string): Promise<void> {
    this.dirs.delete(path);
    for (const name of [...this.files.keys()]) {
      if (name === path || name.startsWith(`${path}/`)) {
        this.files.delete(name);
        this.#bytes.delete(name);
      }
    }
  }

  async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return this.#options.env ?? { PATH: "/usr/bin:/bin", HOME: "/home/guest" };
  }

  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {}
}

/** What a process's guest starts with. */
interface GuestStart {
  source: string;
  env: Record<string, string>;
  cwd: string | undefined;
  files: ReadonlyMap<string, string>;
  network: MemoryNetwork;
}

/** Thrown by {@link GuestContext.loseEnvironment}: the process is lost, not exited. */
class EnvironmentLost extends Error {}

/** A spawned guest: its stdio as Web streams, its exit, and a kill that ends it at once. */
export class MemoryProcess implements EnvironmentProcess {
  readonly stdin = new WritableStream<Uint8Array>();
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Every `kill()` call's options. */
  readonly kills: KillOptions[] = [];
  readonly #streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  readonly #killed = new AbortController();
  readonly #connections = new Set<MemoryEndpoint>();
  readonly #exit: Promise<ProcessExit>;
  #settle!: (outcome: ProcessExit | EnvironmentLost) => void;
  #ended = false;

  constructor() {
    this.stdout = new ReadableStream({ start: (controller) => void this.#streams.push(controller) });
    this.stderr = new ReadableStream({ start: (controller) => void this.#streams.push(controller) });
    this.#exit = new Promise((resolve, reject) => {
      this.#settle = (outcome) => (outcome instanceof EnvironmentLost ? reject(outcome) : resolve(outcome));
    });
    // wait() may never be called (a run that failed first); a lost process is no unhandled rejection.
    this.#exit.catch(() => {});
  }

  /** True once the process has exited or was lost. */
  get ended(): boolean {
    return this.#ended;
  }

  wait(): Promise<ProcessExit> {
    return this.#exit;
  }

  async kill(options: KillOptions = {}): Promise<void> {
    this.kills.push(options);
    if (this.#ended) return;
    this.#killed.abort();
    this.#end({ exitCode: 143, signal: "SIGTERM" });
  }

  /** Ends at once with what a shell or Python would have said. */
  fail(exitCode: number, stderr: string): void {
    queueMicrotask(() => {
      this.#write(1, stderr);
      this.#end({ exitCode });
    });
  }

  run(guest: Guest, start: GuestStart): void {
    const context: GuestContext = {
      source: start.source,
      env: start.env,
      cwd: start.cwd,
      print: (...values) => this.#write(0, `${values.map(String).join(" ")}\n`),
      printError: (text) => this.#write(1, text),
      importModule: (name = "codecall") => importModule({ ...start, connections: this.#connections }, name),
      killed: this.#killed.signal,
      loseEnvironment: (why) => {
        throw new EnvironmentLost(why);
      },
    };
    void Promise.resolve()
      .then(() => guest(context))
      .then(
        (exitCode) => this.#end({ exitCode: exitCode ?? 0 }),
        (error: unknown) => {
          if (error instanceof EnvironmentLost) return this.#end(error);
          this.#write(1, `${tracebackLine(error)}\n`);
          this.#end({ exitCode: 1 });
        },
      );
  }

  #write(stream: 0 | 1, text: string): void {
    if (!this.#ended) quietly(() => this.#streams[stream]!.enqueue(new TextEncoder().encode(text)));
  }

  #end(outcome: ProcessExit | EnvironmentLost): void {
    if (this.#ended) return;
    this.#ended = true;
    // The process is gone: its connections and its ends of the pipes close with it.
    for (const connection of this.#connections) connection.close();
    for (const stream of this.#streams) quietly(() => stream.close());
    this.#settle(outcome);
  }
}

/** What Python prints last for an uncaught exception: `ToolError: ...` (a plain Error's message is the whole line). */
function tracebackLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.name === "Error" ? error.message : `${error.name}: ${error.message}`;
}

/** Runs `action`, ignoring that the reader already let the stream go (as a pipe nobody reads). */
function quietly(action: () => void): void {
  try {
    action();
  } catch {
    // A cancelled stream refuses more; the bytes are lost, as they would be.
  }
}
