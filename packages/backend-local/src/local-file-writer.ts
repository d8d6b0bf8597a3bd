/**
 * `openFileWriter` of the local backend, and its `writeFile`: one descriptor, written chunk by
 * chunk. Each write settles once the kernel has the bytes, so a writer that awaits its writes holds
 * at most one chunk. Whatever a script put at the path, opening it never waits: a FIFO is refused.
 */
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { CodecallError, type WriteFileOptions } from "@codecall/core";

/** Opens `target` (an absolute path) for writing: created or emptied, its parent directories made. */
export async function openLocalFileWriter(target: string, options: WriteFileOptions = {}): Promise<WritableStream<Uint8Array>> {
  await mkdir(path.dirname(target), { recursive: true });
  // O_NONBLOCK: opening a FIFO must not wait for a reader (and hold a libuv thread) for ever.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NONBLOCK;
  const file = await open(target, flags, options.mode ?? 0o644).catch((error: unknown) => Promise.reject(openError(error, target)));
  try {
    if (!(await file.stat()).isFile()) throw new CodecallError("INVALID_PATH", `Not a regular file: ${target}`);
    // `mode` only applies when the file is created; an existing file keeps its own without this.
    // On the descriptor: the path may name another file by now.
    if (options.mode !== undefined) await file.chmod(options.mode);
  } catch (error) {
    await file.close();
    throw error;
  }
  let closed = false;
  const release = async () => {
    if (closed) return;
    closed = true;
    await file.close();
  };
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      try {
        for (let offset = 0; offset < chunk.length;) offset += (await file.write(chunk, offset)).bytesWritten;
      } catch (error) {
        // A failed write errors the stream, and neither close nor abort comes after it.
        await release().catch(() => {});
        throw error;
      }
    },
    close: release,
    abort: release,
  });
}

/** Writes `data` to `target` (an absolute path) as `openLocalFileWriter` opens it: never waiting on a FIFO. */
export async function writeLocalFile(target: string, data: Uint8Array | string, options: WriteFileOptions = {}): Promise<void> {
  const writer = (await openLocalFileWriter(target, options)).getWriter();
  await writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  await writer.close();
}

/** What opening `target` failed with: a FIFO nobody reads (ENXIO with O_NONBLOCK) or a directory, said plainly. */
function openError(error: unknown, target: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENXIO") return new CodecallError("INVALID_PATH", `Not a regular file (a pipe nobody reads): ${target}`, { cause: error });
  if (code === "EISDIR") return new CodecallError("INVALID_PATH", `Is a directory, not a file: ${target}`, { cause: error });
  // A file where the path needs a directory ("notes.txt/" or "notes.txt/x").
  if (code === "ENOTDIR") return new CodecallError("INVALID_PATH", `Not a directory: a part of ${target} is a file`, { cause: error });
  return error;
}
