/**
 * Files through the toolbox's bulk upload and download (multipart, binary-safe), one API call
 * each. The daemon creates parent directories and writes 0644; a `mode` is set afterwards. A
 * read stops after `maxBytes + 1` bytes and drops the download, so the host never holds more.
 * The daemon answers a missing file and a directory alike ("not found or invalid"); a check
 * in the sandbox tells them apart, on that failure path only.
 */
import { CodecallError, errorMessage, type ReadFileOptions, type WriteFileOptions } from "@codecall/core";
import { fileTooLarge, shellQuote, type NativeFiles } from "@codecall/core/backend-kit";
import { sdkFailure } from "./daytona-errors.js";
import type { SandboxConnection } from "./sandbox-connection.js";

/** Exit codes of the check that classifies a failed download. */
const NOT_FOUND = 3;
const DIRECTORY = 4;

export function daytonaFiles(connection: SandboxConnection): Required<NativeFiles> {
  /** The daemon resolves relative paths against its own directory; commands, against the session's. */
  const absolute = async (path: string) => (path.startsWith("/") ? path : `${(await connection.cwd()).replace(/\/+$/, "")}/${path}`);

  return {
    async writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
      const target = await absolute(path);
      await connection.watched((sandbox) =>
        sandbox.fs.uploadFile(Buffer.from(data.buffer, data.byteOffset, data.byteLength), target).catch((error: unknown) => {
          throw sdkFailure(error, `writing ${target}`);
        }),
      );
      if (options.mode === undefined) return;
      const chmod = await connection.run(`chmod ${options.mode.toString(8)} ${shellQuote(target)}`);
      if (chmod.exitCode !== 0) throw new CodecallError("ENVIRONMENT_FAILED", `daytona: could not set the mode of ${target}: ${chmod.stderr.trim()}`);
    },

    async readFile(path: string, options: ReadFileOptions): Promise<Uint8Array> {
      const target = await absolute(path);
      return connection.watched(async (sandbox, lost) => {
        // Aborted when the read stops, early or not (or the sandbox is lost): a download left running would go on filling the host.
        const download = new AbortController();
        lost.addEventListener("abort", () => download.abort(), { once: true });
        let stream: AsyncIterable<Buffer>;
        try {
          stream = await sandbox.fs.downloadFileStream(target, { signal: download.signal });
        } catch (error) {
          download.abort();
          throw await classify(connection, target, error);
        }
        const { maxBytes } = options;
        const chunks: Buffer[] = [];
        let size = 0;
        try {
          for await (const chunk of stream) {
            size += chunk.length;
            if (maxBytes !== undefined && size > maxBytes) throw fileTooLarge(target, maxBytes);
            chunks.push(chunk);
          }
        } catch (error) {
          throw CodecallError.isInstance(error) ? error : sdkFailure(error, `reading ${target}`);
        } finally {
          download.abort();
        }
        return new Uint8Array(Buffer.concat(chunks, size));
      });
    },
  };
}

async function classify(connection: SandboxConnection, path: string, error: unknown): Promise<CodecallError> {
  const q = shellQuote(path);
  const check = await connection
    .run(`if [ -d ${q} ]; then exit ${DIRECTORY}; elif [ -e ${q} ]; then exit 5; else exit ${NOT_FOUND}; fi`)
    .catch(() => undefined);
  if (check?.exitCode === NOT_FOUND) return new CodecallError("FILE_NOT_FOUND", `No such file: ${path}`, { cause: error });
  if (check?.exitCode === DIRECTORY) return new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`, { cause: error });
  return new CodecallError("ENVIRONMENT_FAILED", `daytona: could not read ${path}: ${errorMessage(error)}`, { cause: error });
}
