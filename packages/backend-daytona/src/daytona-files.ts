/**
 * Files through the toolbox's bulk upload and download (multipart, binary-safe), one API call
 * each after one file-info call. The daemon opens the path as it finds it, so a FIFO there (a
 * script can `mkfifo` where a tool reads or writes) would hold the download — and, on daemons
 * that write in place, the upload — for ever. So the toolbox's file info is asked first: reads
 * refuse directories, FIFOs and sockets (devices such as /dev/zero stay readable within
 * `maxBytes`), writes anything existing that is no regular file, with `INVALID_PATH`. A path that
 * changes kind between the check and the transfer is caught by the transfer's stall check: one
 * that moved nothing for a few liveness intervals asks again, and a FIFO found there fails it.
 *
 * The daemon creates parent directories and writes 0644; a `mode` is set afterwards. A read stops
 * after `maxBytes + 1` bytes and drops the download, so the host never holds more.
 */
import { CodecallError, type ReadFileOptions, type WriteFileOptions } from "@codecall/core";
import { fileTooLarge, shellQuote, type NativeFiles } from "@codecall/core/backend-kit";
import { sdkFailure, statusOf } from "./daytona-errors.js";
import type { DaytonaSandbox } from "./daytona-sdk.js";
import { fileKind, type FileKind } from "./file-kind.js";
import type { SandboxConnection } from "./sandbox-connection.js";

export function daytonaFiles(connection: SandboxConnection): Required<NativeFiles> {
  /** The daemon resolves relative paths against its own directory; commands, against the session's. */
  const absolute = async (path: string) => (path.startsWith("/") ? path : `${(await connection.cwd()).replace(/\/+$/, "")}/${path}`);

  return {
    async writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
      const target = await absolute(path);
      const refusal = (kind: FileKind | undefined) => (kind === undefined || kind === "file" ? undefined : notRegular(target, kind));
      await connection.watched(
        async (sandbox, transfer) => {
          const refused = refusal(await kindAt(sandbox, target));
          if (refused) throw refused;
          const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
          await sandbox.fs.uploadFileStream(bytes, target, { signal: transfer.lost, onProgress: transfer.progress }).catch((error: unknown) => {
            throw sdkFailure(error, `writing ${target}`);
          });
        },
        async (sandbox) => refusal(await kindAt(sandbox, target)),
      );
      if (options.mode === undefined) return;
      const chmod = await connection.run(`chmod ${options.mode.toString(8)} ${shellQuote(target)}`);
      if (chmod.exitCode !== 0) throw new CodecallError("ENVIRONMENT_FAILED", `daytona: could not set the mode of ${target}: ${chmod.stderr.trim()}`);
    },

    async readFile(path: string, options: ReadFileOptions): Promise<Uint8Array> {
      const target = await absolute(path);
      const refusal = (kind: FileKind | undefined) =>
        kind === undefined
          ? new CodecallError("FILE_NOT_FOUND", `No such file: ${target}`)
          : kind === "directory" || kind === "fifo" || kind === "socket"
            ? notRegular(target, kind)
            : undefined;
      return connection.watched(
        async (sandbox, transfer) => {
          const refused = refusal(await kindAt(sandbox, target));
          if (refused) throw refused;
          // Aborted when the read stops, early or not (or the transfer is failed): a download left running would go on filling the host.
          const download = new AbortController();
          transfer.lost.addEventListener("abort", () => download.abort(), { once: true });
          let stream: AsyncIterable<Buffer>;
          try {
            stream = await sandbox.fs.downloadFileStream(target, { signal: download.signal });
          } catch (error) {
            download.abort();
            // The path changed since the check (removed, replaced): say what is there now.
            const now = await kindAt(sandbox, target).catch(() => "file" as const);
            throw refusal(now) ?? sdkFailure(error, `reading ${target}`);
          }
          const { maxBytes } = options;
          const chunks: Buffer[] = [];
          let size = 0;
          try {
            for await (const chunk of stream) {
              transfer.progress();
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
        },
        // A file removed while it is read still streams (the daemon has it open): only a blocking kind fails a quiet read.
        async (sandbox) => {
          const kind = await kindAt(sandbox, target);
          return kind === undefined ? undefined : refusal(kind);
        },
      );
    },
  };
}

/** The kind of what is at `path`, links followed; undefined when nothing is. */
async function kindAt(sandbox: DaytonaSandbox, path: string): Promise<FileKind | undefined> {
  try {
    return fileKind(await sandbox.fs.getFileDetails(path));
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw sdkFailure(error, `looking at ${path}`);
  }
}

function notRegular(path: string, kind: FileKind): CodecallError {
  return kind === "directory"
    ? new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`)
    : new CodecallError("INVALID_PATH", `Not a regular file (a ${kind}): ${path}`);
}
