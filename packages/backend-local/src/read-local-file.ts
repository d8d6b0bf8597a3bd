/**
 * `readFile` of the local backend: one descriptor, read chunk by chunk through core's
 * `readBounded`, so `maxBytes` bounds host memory even when a script swaps the path for a bigger
 * file between a size check and the read (the file is whatever was opened, read up to the bound).
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { CodecallError, type ReadFileOptions } from "@codecall/core";
import { readBounded } from "@codecall/core/plugin-kit";

/** Reads `target` (an absolute path) with the Environment contract's errors. */
export async function readLocalFile(target: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (and hold a libuv thread) for ever.
  const file = await open(target, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => Promise.reject(fileError(error, target)));
  try {
    const info = await file.stat();
    if (info.isDirectory()) throw new CodecallError("INVALID_PATH", `Is a directory, not a file: ${target}`);
    if (info.isFIFO() || info.isSocket()) throw new CodecallError("INVALID_PATH", `Not a regular file (a pipe or socket): ${target}`);
    return await readBounded(async (into, position) => (await file.read(into, 0, into.length, position)).bytesRead, {
      path: target,
      maxBytes: options.maxBytes,
      // Files in /proc and /sys claim 0 bytes; the read finds their end anyway.
      ...(info.isFile() && info.size > 0 ? { sizeHint: info.size } : {}),
    });
  } finally {
    await file.close();
  }
}

function fileError(error: unknown, target: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new CodecallError("FILE_NOT_FOUND", `No such file: ${target}`, { cause: error });
  if (code === "EISDIR") return new CodecallError("INVALID_PATH", `Is a directory, not a file: ${target}`, { cause: error });
  // A file where the path needs a directory ("notes.txt/" or "notes.txt/x").
  if (code === "ENOTDIR") return new CodecallError("INVALID_PATH", `Not a directory: a part of ${target} is a file`, { cause: error });
  return error;
}
