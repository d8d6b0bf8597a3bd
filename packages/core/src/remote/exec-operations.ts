/**
 * The environment's operations as plain backend execs: each command one exec under the remote
 * wrapper (see `RemoteExecutor`), files through exec too (stdin up, base64 down), which works on
 * any POSIX environment — or through the backend's native file transfer (docker archives, sftp)
 * when it offers one.
 *
 * A read with `maxBytes` is bounded twice: `head -c` stops it inside the environment, and the host
 * keeps no more of the exec's output than that many bytes encode to (whatever `head` turns out to
 * be), so a script cannot make the host hold more than the cap.
 */
import type { ExecOptions, ExecResult, ReadFileOptions, SpawnOptions, WriteFileOptions } from "../environment.js";
import { CodecallError } from "../errors.js";
import { checkMaxBytes, fileTooLarge } from "../files/bounded-read.js";
import { shellQuote } from "../text/shell-quote.js";
import type { RemoteExecutor, RemoteProcess } from "./remote-executor.js";
import type { RemoteOperations } from "./remote-operations.js";

/** Native file transfer a backend may offer instead of exec. */
export interface NativeFiles {
  writeFile?(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void>;
  /** Must honour `maxBytes` with the read itself (see `readBounded`), never with a size check before it. */
  readFile?(path: string, options: ReadFileOptions): Promise<Uint8Array>;
}

/** Exit code the file helpers use for "no such file". */
const NOT_FOUND_EXIT_CODE = 3;
const IS_DIRECTORY_EXIT_CODE = 4;
/** Exit code of the read helper for a FIFO or socket, whose open would wait for a peer for ever. */
const NOT_REGULAR_EXIT_CODE = 5;
/** What the write helper prints, instead of writing, for a path that is no regular file. */
const NOT_REGULAR_ANSWER = "not-regular";
const IS_DIRECTORY_ANSWER = "directory";

export class ExecOperations implements RemoteOperations {
  readonly #executor: RemoteExecutor;
  readonly #files: NativeFiles | undefined;

  constructor(executor: RemoteExecutor, files?: NativeFiles) {
    this.#executor = executor;
    this.#files = files;
  }

  execute(command: string, options: ExecOptions): Promise<ExecResult> {
    return this.#executor.execute(command, options);
  }

  spawn(command: string, options: SpawnOptions): Promise<RemoteProcess> {
    return this.#executor.spawn(command, options);
  }

  async writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
    if (this.#files?.writeFile) return this.#files.writeFile(path, data, options);
    const target = shellQuote(path);
    const chmod = options.mode === undefined ? "" : ` && chmod ${options.mode.toString(8)} ${target}`;
    // `cat >` a FIFO would wait for a reader for ever (a script can mkfifo where a tool writes):
    // refuse what exists and is no regular file, draining the input the host sends regardless.
    const refuse = `if [ -e ${target} ] && [ ! -f ${target} ]; then cat > /dev/null; [ -d ${target} ] && echo ${IS_DIRECTORY_ANSWER} || echo ${NOT_REGULAR_ANSWER}; exit 0; fi`;
    const answer = (await this.#executor.run(`${refuse}; mkdir -p "$(dirname ${target})" && cat > ${target}${chmod}`, data)).trim();
    if (answer === IS_DIRECTORY_ANSWER) throw new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`);
    if (answer === NOT_REGULAR_ANSWER) throw new CodecallError("INVALID_PATH", `Not a regular file: ${path}`);
  }

  async readFile(path: string, options: ReadFileOptions): Promise<Uint8Array> {
    const { maxBytes } = options;
    checkMaxBytes(maxBytes);
    if (this.#files?.readFile) return this.#files.readFile(path, options);
    const target = shellQuote(path);
    // One descriptor for the whole read: what is read is what was opened.
    const read = maxBytes === undefined ? "base64 <&3" : `head -c ${maxBytes + 1} <&3 | base64`;
    const result = await this.#executor.execute(
      `[ -e ${target} ] || exit ${NOT_FOUND_EXIT_CODE}; [ -d ${target} ] && exit ${IS_DIRECTORY_EXIT_CODE}; ` +
        `{ [ -p ${target} ] || [ -S ${target} ]; } && exit ${NOT_REGULAR_EXIT_CODE}; exec 3< ${target} && ${read}`,
      maxBytes === undefined ? {} : { maxOutputBytes: base64Length(maxBytes + 1) },
    );
    if (result.exitCode === NOT_FOUND_EXIT_CODE) throw new CodecallError("FILE_NOT_FOUND", `No such file: ${path}`);
    if (result.exitCode === IS_DIRECTORY_EXIT_CODE) throw new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`);
    if (result.exitCode === NOT_REGULAR_EXIT_CODE) throw new CodecallError("INVALID_PATH", `Not a regular file: ${path}`);
    if (result.exitCode !== 0) throw new CodecallError("ENVIRONMENT_FAILED", `Could not read ${path}: ${result.stderr.trim()}`);
    // More output than the bound encodes to: the environment's head did not stop; still over.
    if (maxBytes !== undefined && result.truncated) throw fileTooLarge(path, maxBytes);
    const bytes = fromBase64(result.stdout);
    if (maxBytes !== undefined && bytes.length > maxBytes) throw fileTooLarge(path, maxBytes);
    return bytes;
  }

  async tempDir(root: string | undefined): Promise<string> {
    const parent = root === undefined ? '"${TMPDIR:-/tmp}"' : shellQuote(root);
    return (await this.#executor.run(`umask 077 && mktemp -d ${parent}/codecall-XXXXXX`)).trim();
  }

  async remove(path: string): Promise<void> {
    await this.#executor.run(`rm -rf -- ${shellQuote(path)}`);
  }

  /** Read with `env -0`, so values may hold newlines. */
  async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return parseNulSeparatedEnv(await this.#executor.run("env -0"));
  }

  /** Kills what is still running and removes the executor's state. */
  dispose(): Promise<void> {
    return this.#executor.dispose();
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
