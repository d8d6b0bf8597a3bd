/**
 * The Environment contract: where a script and the commands of built-in tools run. A backend
 * package (local, docker, ssh, ...) implements it; transports and `executeCode` use only this.
 *
 * Every backend runs commands through a POSIX `sh`, so command strings are shell syntax.
 */

/** What a backend can do beyond the required methods; transports choose themselves from this. */
export interface EnvironmentCapabilities {
  /**
   * A process in the environment can connect to a Unix socket the host creates, at the same path
   * (the environment shares the host's filesystem and kernel: the local backend).
   */
  readonly hostSockets: boolean;
  /** `spawn()` keeps stdin/stdout open for the life of the process (needed by a stream relay). */
  readonly streamingStdio: boolean;
  /** How many exec calls may run at once; `undefined` when the backend knows no limit. */
  readonly maxConcurrentExec?: number;
}

/** Options shared by `execute`, `executeOneshot` and `spawn`. */
export interface CommandOptions {
  /** Working directory inside the environment. One that does not exist rejects the call with an error naming it. */
  cwd?: string;
  /** Variables set for the command, on top of the environment's default ones (see `clearEnv`). */
  env?: Readonly<Record<string, string>>;
  /** Start from an empty environment: the command sees only `env`. */
  clearEnv?: boolean;
  /**
   * Kill the command's whole process tree after this long. Backends enforce it inside the
   * environment where they can (so it holds even if the host goes away) and keep a host-side
   * backstop.
   */
  timeoutMs?: number;
  /** Aborting kills the command's process tree. */
  signal?: AbortSignal;
}

/** Options of `execute` and `executeOneshot`. */
export interface ExecOptions extends CommandOptions {
  /** Bytes written to the command's stdin, which is then closed. Without it stdin is empty. */
  stdin?: string | Uint8Array;
  /**
   * Keep at most this many bytes of each of stdout and stderr (head and tail; the middle is
   * replaced by a notice). Default: unlimited — set it whenever the command is not yours.
   */
  maxOutputBytes?: number;
}

/** What a finished command left behind. A non-zero exit code is a result, not an exception. */
export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The command was killed because `timeoutMs` ran out. */
  timedOut: boolean;
  /** Name of the signal that ended the command, when one did (e.g. "SIGKILL"). */
  signal?: string;
  /** Set when `maxOutputBytes` cut stdout or stderr. */
  truncated?: boolean;
  /** Set when the command was killed and the environment never reported its end (see {@link ProcessExit.unconfirmed}). */
  unconfirmed?: string;
}

/** Options of `spawn`. */
export interface SpawnOptions extends CommandOptions {
  /**
   * Optional: what to run instead of the command where the environment itself holds the
   * command's whole process tree — ends every process the command started, escaped ones too
   * (`setsid`, double fork, a cleared environment), when the command's first process exits, and
   * reports that process's exit or signal as the command's. An environment takes it only while it
   * does so (an `ExecEnvironment` while its agent is up, never on plain execs); every other one
   * runs the command, so both must do the same job. `executeCode` and sessions give one that runs
   * the script without codecall's launcher, which exists to do just that (see `guest/launcher.ts`).
   */
  whenTreeHeld?: TreeHeldCommand;
}

/** The command of {@link SpawnOptions.whenTreeHeld}. */
export interface TreeHeldCommand {
  /** Runs in place of the spawn's command, as `sh -c`, with its options; its first process leads a new session. */
  command: string;
  /**
   * A stored (uncompressed) zip of plain names, as core's `storedZip` writes: its files are
   * written into its directory (mode 0600, never over an existing file) just before `command`
   * starts. When they cannot be, `command` does not start: the command exits 1, saying why on stderr.
   */
  unpack?: string;
}

/** How a process ended. */
export interface ProcessExit {
  /** The exit code; `128 + n` when the process died of signal `n` (shell convention). */
  exitCode: number;
  signal?: string;
  /**
   * Set when the environment never reported the end of a command it was told to kill (timeout,
   * abort, close): why the host settled it without that report. `exitCode` and `signal` are then
   * what the kill meant (137, SIGKILL), not a report, and the command may still run there.
   */
  unconfirmed?: string;
}

/** Options of {@link EnvironmentProcess.kill}. */
export interface KillOptions {
  /**
   * Send SIGTERM first and SIGKILL only after this many milliseconds if anything is left.
   * `0` (the default) sends SIGKILL at once.
   */
  graceMs?: number;
}

/** A process started by `spawn`, with Web streams so the contract is runtime-neutral. */
export interface EnvironmentProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves once the process has exited (it never rejects for a non-zero exit). */
  wait(): Promise<ProcessExit>;
  /** Ends the whole process tree, inside the environment. Safe to call more than once. */
  kill(options?: KillOptions): Promise<void>;
}

/** Options of `writeFile`. */
export interface WriteFileOptions {
  /** File mode, e.g. `0o600`. Default: `0o644` less the environment's umask. */
  mode?: number;
}

/** Options of `readFile`. */
export interface ReadFileOptions {
  /**
   * The most bytes the caller accepts. The read itself stops after `maxBytes + 1` bytes and
   * rejects with `FILE_TOO_LARGE` (details: `path`, `limit`, and `size` when the backend knows
   * it), so host memory stays bounded by the cap even when the file grows or is swapped for
   * another between a size check and the read. Without it the whole file is read: set it
   * whenever the file is not yours.
   */
  maxBytes?: number;
}

/** One connection a process inside the environment made to a socket the host listens on (see `Environment.listenUnix`). */
export interface SocketConnection {
  /** What the process sends; ends when it closes its side. */
  readonly readable: ReadableStream<Uint8Array>;
  /**
   * To the process. A write settles once the environment has room for it (so a process that
   * does not read holds back only its own connection); closing it ends the process's side.
   */
  readonly writable: WritableStream<Uint8Array>;
}

/** A Unix socket the host listens on inside the environment. */
export interface SocketListener {
  /** Stops listening, removes the socket and ends its connections. Idempotent. */
  close(): Promise<void>;
}

/** An execution environment. Obtain one from a backend package or the resolver. */
export interface Environment extends AsyncDisposable {
  /** The contract version this environment implements; hosts refuse another one. */
  readonly specificationVersion: "v1";
  /** Which backend made this environment: "local", "docker", "ssh", ... */
  readonly backendId: string;
  readonly capabilities: EnvironmentCapabilities;
  /** Runs a command to completion and collects its output. */
  execute(command: string, options?: ExecOptions): Promise<ExecResult>;
  /**
   * Like `execute`, and safe to call at any time, concurrently with a long-running `execute()`
   * or `spawn()` (RPC pollers rely on this).
   */
  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Starts a command and streams its stdio. */
  spawn(command: string, options?: SpawnOptions): Promise<EnvironmentProcess>;
  /**
   * Writes a file (binary-safe), creating missing parent directories. Rejects with `INVALID_PATH`
   * for a directory or a FIFO, at once: a FIFO must never make the write wait for a reader.
   */
  writeFile(path: string, data: Uint8Array | string, options?: WriteFileOptions): Promise<void>;
  /**
   * Optional: opens a file for writing as a byte stream, so a large file need not sit in host
   * memory (core streams a spilled output into one as the script prints it). Creates the file, or
   * empties an existing one, with `mode` as `writeFile` does, and its missing parent directories;
   * rejects when it cannot. Writes settle once the environment has taken the bytes (flow
   * control), and a chunk is the stream's only until then: the caller may reuse its buffer after.
   * The file is whole once `close()` resolves. A write that fails errors the stream
   * (later writes and `close()` reject with that error); `abort()` stops writing and leaves what
   * was written. Without it, callers write the file in one piece with `writeFile`.
   */
  openFileWriter?(path: string, options?: WriteFileOptions): Promise<WritableStream<Uint8Array>>;
  /**
   * Reads a whole file (binary-safe). Rejects with `FILE_NOT_FOUND` when it does not exist,
   * `INVALID_PATH` for a directory or a FIFO (at once, never waiting for a writer), and
   * `FILE_TOO_LARGE` when it holds more than `maxBytes`. A device is read like a file, within
   * `maxBytes` (`/dev/zero` ends in `FILE_TOO_LARGE`).
   */
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;
  /** Creates a new, empty directory that only the environment's user can enter (0700). */
  tempDir(): Promise<string>;
  /** Removes a file or a whole directory tree; succeeds when nothing is there. */
  remove(path: string): Promise<void>;
  /** The variables a command gets when no `env` option is given. */
  defaultEnv(): Promise<Readonly<Record<string, string>>>;
  /**
   * Optional: listens on a Unix socket at `path` inside the environment (mode 0600, in a directory
   * the caller made) and hands every connection a process there makes to `onConnection`, on the
   * host, as byte streams with flow control. Resolves `undefined` when the environment cannot do
   * it now (e.g. its agent is not running): the caller then uses its own means, as the stream
   * transport does with its relay. Transports use it without knowing the backend.
   */
  listenUnix?(path: string, onConnection: (connection: SocketConnection) => void): Promise<SocketListener | undefined>;
  /** Releases everything the environment holds. Idempotent. */
  close(): Promise<void>;
}
