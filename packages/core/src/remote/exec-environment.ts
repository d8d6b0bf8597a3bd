/**
 * A complete Environment from one primitive — "start a command, give me its stdio and exit" —
 * for backends that reach their environment through an exec API. Files travel through exec too
 * (stdin up, base64 down), which works on any POSIX environment; a backend with a faster native
 * channel (docker archives, sftp) passes its own file functions.
 *
 * A read with `maxBytes` is bounded twice: `head -c` stops it inside the environment, and the host
 * keeps no more of the exec's output than that many bytes encode to (whatever `head` turns out to
 * be), so a script cannot make the host hold more than the cap.
 */
import { ENVIRONMENT_SPECIFICATION_VERSION } from "../specification.js";
import type {
  CommandOptions,
  Environment,
  EnvironmentCapabilities,
  ExecOptions,
  ExecResult,
  ReadFileOptions,
  SpawnOptions,
  WriteFileOptions,
} from "../environment.js";
import { CodecallError } from "../errors.js";
import { checkMaxBytes, fileTooLarge } from "../files/bounded-read.js";
import { shellQuote } from "../text/shell-quote.js";
import { RemoteExecutor, type RemoteProcess, type StartExec } from "./remote-executor.js";

/** Native file transfer a backend may offer instead of exec. */
export interface NativeFiles {
  writeFile?(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void>;
  /** Must honour `maxBytes` with the read itself (see `readBounded`), never with a size check before it. */
  readFile?(path: string, options: ReadFileOptions): Promise<Uint8Array>;
}

export interface ExecEnvironmentOptions {
  backendId: string;
  capabilities: EnvironmentCapabilities;
  start: StartExec;
  files?: NativeFiles;
  /** Where `tempDir()` creates directories (default: `$TMPDIR`, else `/tmp`, inside the environment). */
  tempRoot?: string;
  /**
   * Default working directory of commands; relative paths (a command's `cwd`, file paths) are
   * resolved against it. Without it they are relative to wherever the backend starts commands.
   */
  workdir?: string;
  /** Variables every command gets on top of the environment's own (also part of `defaultEnv()`). */
  env?: Readonly<Record<string, string>>;
  /** Releases the backend's own resources (container, connection); runs once, after running commands were killed. */
  onClose?: () => Promise<void>;
}

/** Exit code the file helpers use for "no such file". */
const NOT_FOUND_EXIT_CODE = 3;
const IS_DIRECTORY_EXIT_CODE = 4;

export class ExecEnvironment implements Environment {
  readonly specificationVersion = ENVIRONMENT_SPECIFICATION_VERSION;
  readonly backendId: string;
  readonly capabilities: EnvironmentCapabilities;
  readonly #executor: RemoteExecutor;
  readonly #options: ExecEnvironmentOptions;
  #defaultEnv: Promise<Readonly<Record<string, string>>> | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;

  constructor(options: ExecEnvironmentOptions) {
    this.backendId = options.backendId;
    this.capabilities = options.capabilities;
    this.#options = options;
    this.#executor = new RemoteExecutor({ start: (exec) => this.#guardedStart(exec), backendId: options.backendId });
  }

  execute(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.#executor.execute(command, this.#withDefaults(options));
  }

  /** Every exec is independent, so this is `execute`. */
  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.#executor.execute(command, this.#withDefaults(options));
  }

  spawn(command: string, options?: SpawnOptions): Promise<RemoteProcess> {
    return this.#executor.spawn(command, this.#withDefaults(options));
  }

  async writeFile(relativePath: string, data: Uint8Array | string, options: WriteFileOptions = {}): Promise<void> {
    const path = this.#resolve(relativePath);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    if (this.#options.files?.writeFile) {
      this.#assertOpen();
      return this.#options.files.writeFile(path, bytes, options);
    }
    const target = shellQuote(path);
    const chmod = options.mode === undefined ? "" : ` && chmod ${options.mode.toString(8)} ${target}`;
    await this.#executor.run(`mkdir -p "$(dirname ${target})" && cat > ${target}${chmod}`, bytes);
  }

  async readFile(relativePath: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const path = this.#resolve(relativePath);
    const { maxBytes } = options;
    checkMaxBytes(maxBytes);
    if (this.#options.files?.readFile) {
      this.#assertOpen();
      return this.#options.files.readFile(path, options);
    }
    const target = shellQuote(path);
    // One descriptor for the whole read: what is read is what was opened.
    const read = maxBytes === undefined ? "base64 <&3" : `head -c ${maxBytes + 1} <&3 | base64`;
    const result = await this.#executor.execute(
      `[ -e ${target} ] || exit ${NOT_FOUND_EXIT_CODE}; [ -d ${target} ] && exit ${IS_DIRECTORY_EXIT_CODE}; exec 3< ${target} && ${read}`,
      maxBytes === undefined ? {} : { maxOutputBytes: base64Length(maxBytes + 1) },
    );
    if (result.exitCode === NOT_FOUND_EXIT_CODE) throw new CodecallError("FILE_NOT_FOUND", `No such file: ${path}`);
    if (result.exitCode === IS_DIRECTORY_EXIT_CODE) throw new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`);
    if (result.exitCode !== 0) throw new CodecallError("ENVIRONMENT_FAILED", `Could not read ${path}: ${result.stderr.trim()}`);
    // More output than the bound encodes to: the environment's head did not stop; still over.
    if (maxBytes !== undefined && result.truncated) throw fileTooLarge(path, maxBytes);
    const bytes = fromBase64(result.stdout);
    if (maxBytes !== undefined && bytes.length > maxBytes) throw fileTooLarge(path, maxBytes);
    return bytes;
  }

  async tempDir(): Promise<string> {
    const root = this.#options.tempRoot === undefined ? '"${TMPDIR:-/tmp}"' : shellQuote(this.#options.tempRoot);
    const dir = (await this.#executor.run(`umask 077 && mktemp -d ${root}/codecall-XXXXXX`)).trim();
    if (!dir.startsWith("/")) throw new CodecallError("ENVIRONMENT_FAILED", `${this.backendId}: mktemp gave no directory (${dir})`);
    return dir;
  }

  async remove(path: string): Promise<void> {
    await this.#executor.run(`rm -rf -- ${shellQuote(this.#resolve(path))}`);
  }

  /** The environment's own variables, read once (with `env -0`, so values may hold newlines), plus the `env` option. */
  defaultEnv(): Promise<Readonly<Record<string, string>>> {
    this.#defaultEnv ??= this.#executor.run("env -0").then((output) => ({ ...parseNulSeparatedEnv(output), ...this.#options.env }));
    this.#defaultEnv.catch(() => (this.#defaultEnv = undefined));
    return this.#defaultEnv;
  }

  /** Kills what is still running, then lets the backend release its resources. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#executor.dispose();
      await this.#options.onClose?.();
      this.#closed = true;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The `workdir` and `env` options as defaults of one command's options. */
  #withDefaults<T extends CommandOptions>(options: T = {} as T): T {
    const { workdir, env: baseEnv } = this.#options;
    const cwd = options.cwd === undefined ? workdir : this.#resolve(options.cwd);
    const env = options.clearEnv || baseEnv === undefined ? options.env : { ...baseEnv, ...options.env };
    return { ...options, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }) };
  }

  /** Relative paths are relative to `workdir` when it is set. */
  #resolve(path: string): string {
    const { workdir } = this.#options;
    if (workdir === undefined || path.startsWith("/")) return path;
    return `${workdir.replace(/\/+$/, "")}/${path}`;
  }

  #guardedStart: StartExec = (exec) => {
    this.#assertOpen();
    return this.#options.start(exec);
  };

  #assertOpen(): void {
    // dispose() still runs its cleanup commands while closing; only a finished close refuses work.
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", `This ${this.backendId} environment is closed`);
  }
}

function parseNulSeparatedEnv(output: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of output.split("\0")) {
    const equals = entry.indexOf("=");
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}

/** Upper bound of `base64`'s output for `bytes` bytes: 4 characters per 3 bytes, a newline per 76. */
function base64Length(bytes: number): number {
  const encoded = Math.ceil(bytes / 3) * 4;
  return encoded + Math.ceil(encoded / 76) + 1;
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ""));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
