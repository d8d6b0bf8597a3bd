/**
 * File helpers shared by the tools, all over the Environment contract: checking a path from the
 * guest, expanding `~`, asking the environment what a path is (and how big) before anything is
 * loaded into host memory, and reading bytes with readable errors.
 *
 * Relative paths are left relative: the environment resolves them (during a run, core's
 * ScopedEnvironment joins them with the run's working directory, and shell commands run there).
 */
import { CodecallError, errorMessage, type Environment } from "@codecall/core";
import { groupDigits, shellQuote } from "@codecall/core/plugin-kit";

/** Time a small helper command (a stat) may take. */
const PROBE_TIMEOUT_MS = 30_000;

/** Checks a path argument: a non-empty string without NUL bytes. Returns it unchanged. */
export function checkPath(value: unknown, name = "path"): string {
  if (typeof value !== "string" || value === "") throw new TypeError(`${name} must be a non-empty string`);
  if (value.includes("\0")) throw new CodecallError("INVALID_PATH", `${name} must not contain NUL bytes`);
  return value;
}

/**
 * `~` and `~/rest` made absolute with the environment's `HOME` (shell commands expand `~`, the
 * file methods do not). Other paths, and `~` when `HOME` is unknown, come back unchanged.
 */
export async function expandHome(environment: Environment, path: string): Promise<string> {
  if (path !== "~" && !path.startsWith("~/")) return path;
  const home = (await environment.defaultEnv()).HOME;
  if (!home) return path;
  return path === "~" ? home : `${home.replace(/\/+$/, "")}/${path.slice(2)}`;
}

/** What {@link probeFile} found: a regular, readable file of `size` bytes. */
export interface FileInfo {
  size: number;
}

/**
 * Asks the environment about `target` with one small command, so nothing is read before its size
 * is known. Throws `FILE_NOT_FOUND` ("File not found: path") or `INVALID_PATH` for directories,
 * special files and unreadable files. `shown` is the path as the caller gave it, for messages.
 */
export async function probeFile(environment: Environment, target: string, shown: string, signal?: AbortSignal): Promise<FileInfo> {
  const command =
    `f=${shellQuote(target)}; ` +
    `if [ -d "$f" ]; then echo dir; ` +
    `elif [ ! -e "$f" ]; then echo missing; ` +
    `elif [ ! -f "$f" ]; then echo special; ` +
    `elif [ ! -r "$f" ]; then echo unreadable; ` +
    `else n=$(wc -c < "$f") && echo "file $n"; fi`;
  const result = await environment.execute(command, { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, ...(signal ? { signal } : {}) });
  throwIfAborted(signal);
  const answer = result.stdout.trim();
  switch (answer.split(/\s+/)[0]) {
    case "missing":
      throw fileNotFound(shown);
    case "dir":
      throw new CodecallError(
        "INVALID_PATH",
        `${shown} is a directory, not a file. List it with search_files(pattern="*", target="files", path=${JSON.stringify(shown)}) or terminal("ls -la ${shellQuote(shown)}").`,
        { details: { path: shown } },
      );
    case "special":
      throw new CodecallError("INVALID_PATH", `${shown} is not a regular file (a device, socket or pipe); use terminal to inspect it.`, {
        details: { path: shown },
      });
    case "unreadable":
      throw new CodecallError("INVALID_PATH", `Permission denied: ${shown} is not readable.`, { details: { path: shown } });
    case "file": {
      const size = Number(answer.split(/\s+/)[1]);
      if (Number.isSafeInteger(size) && size >= 0) return { size };
      break;
    }
  }
  const why = (result.stderr || result.stdout).trim() || `exit code ${result.exitCode}`;
  throw new CodecallError("ENVIRONMENT_FAILED", `Could not inspect ${shown}: ${why}`, { details: { path: shown } });
}

/**
 * `environment.readFile` with the cap applied by the read itself: however the file changed since
 * {@link probeFile} measured it (a swapped symlink), no more than `maxBytes + 1` bytes reach the
 * host. A missing file is "File not found: shown"; one over the cap gets {@link assertSize}'s message.
 */
export async function readBytes(environment: Environment, target: string, shown: string, maxBytes: number, tool: string): Promise<Uint8Array> {
  try {
    return await environment.readFile(target, { maxBytes });
  } catch (error) {
    if (CodecallError.isInstance(error, "FILE_NOT_FOUND")) throw fileNotFound(shown, error);
    if (CodecallError.isInstance(error, "FILE_TOO_LARGE")) {
      const size = error.details.size;
      throw tooLarge(shown, typeof size === "number" ? size : undefined, maxBytes, tool, error);
    }
    if (CodecallError.isInstance(error)) throw error;
    throw new CodecallError("ENVIRONMENT_FAILED", `Could not read ${shown}: ${errorMessage(error)}`, { cause: error, details: { path: shown } });
  }
}

/** The error for a file that does not exist. */
export function fileNotFound(shown: string, cause?: unknown): CodecallError {
  return new CodecallError("FILE_NOT_FOUND", `File not found: ${shown}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { path: shown },
  });
}

/** Refuses a file over `maxBytes`, pointing at terminal commands that read parts of it. */
export function assertSize(info: FileInfo, maxBytes: number, shown: string, tool: string): void {
  if (info.size > maxBytes) throw tooLarge(shown, info.size, maxBytes, tool);
}

/** `FILE_TOO_LARGE` for a tool, with terminal commands that read parts of the file; `size` when known. */
function tooLarge(shown: string, size: number | undefined, maxBytes: number, tool: string, cause?: unknown): CodecallError {
  const q = shellQuote(shown);
  return new CodecallError(
    "FILE_TOO_LARGE",
    `${shown} is ${size === undefined ? "larger than" : `${formatBytes(size)}, over`} the ${formatBytes(maxBytes)} limit of ${tool}. ` +
      `Work on parts of it with terminal instead, e.g. terminal("head -n 200 ${q}"), ` +
      `terminal("sed -n '1000,1200p' ${q}") or terminal("grep -n PATTERN ${q}").`,
    { ...(cause === undefined ? {} : { cause }), details: { path: shown, ...(size === undefined ? {} : { size }), limit: maxBytes } },
  );
}

/** True when `bytes` holds a NUL byte: the usual sign of a binary file. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/** The error for a binary file. */
export function binaryFile(shown: string, tool: string): CodecallError {
  const q = shellQuote(shown);
  return new CodecallError(
    "INVALID_PATH",
    `${shown} looks like a binary file (it contains NUL bytes); ${tool} works on text files only. ` +
      `Inspect it with terminal, e.g. terminal("file ${q}") or terminal("od -c ${q} | head -n 20").`,
    { details: { path: shown } },
  );
}

/** `1,234 bytes` / `12.3 MB` style sizes for messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${groupDigits(bytes)} bytes`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Throws when the tool call was cancelled (the run was interrupted or ended). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new Error(`Interrupted: ${errorMessage(signal.reason ?? "the tool call was cancelled")}`, { cause: signal.reason });
}
