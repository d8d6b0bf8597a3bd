/**
 * Files over the connection's SFTP session: binary-safe, no process started on the host, and
 * requests pipelined on one channel. Semantics match core's exec-based fallback: parent
 * directories are created, `mode` is applied (also to an existing file), a missing file is
 * `FILE_NOT_FOUND` and a directory, FIFO or socket `INVALID_PATH`. Reads go through one open handle, chunk by
 * chunk, so `maxBytes` bounds what crosses the connection whatever the file does meanwhile.
 */
import { posix } from "node:path";
import { CodecallError, type ReadFileOptions, type WriteFileOptions } from "@codecall/core";
import { readBounded, type NativeFiles } from "@codecall/core/backend-kit";
import type { SFTPWrapper, Stats } from "ssh2";

/** SFTP status codes (draft-ietf-secsh-filexfer-02), the ones that matter here. */
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

/** Native file functions for `ExecEnvironment`, each on the session `sftp()` gives. */
export function sftpFiles(sftp: () => Promise<SFTPWrapper>): Required<NativeFiles> {
  return {
    async writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
      const session = await sftp();
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      await refuseBlockingKinds(session, path, { writing: true });
      const write = () => call<void>((done) => session.writeFile(path, bytes, options.mode === undefined ? {} : { mode: options.mode }, done));
      try {
        await write();
      } catch (error) {
        if (statusOf(error) !== NO_SUCH_FILE) throw fileError(error, path);
        await ensureDirectory(session, posix.dirname(path));
        await write().catch((retry: unknown) => Promise.reject(fileError(retry, path)));
      }
      // The mode given at open only applies when the file is created.
      if (options.mode !== undefined)
        await call<void>((done) => session.chmod(path, options.mode!, done)).catch((error: unknown) => Promise.reject(fileError(error, path)));
    },

    async readFile(path: string, options: ReadFileOptions): Promise<Uint8Array> {
      const session = await sftp();
      await refuseBlockingKinds(session, path, { writing: false });
      const handle = await openForReading(session, path);
      try {
        const stats = await call<Stats>((done) => session.fstat(handle, done)).catch((error: unknown) => Promise.reject(fileError(error, path)));
        if (stats.isDirectory()) throw directoryError(path);
        const readAt = (into: Uint8Array, position: number) =>
          call<number>((done) =>
            session.read(handle, Buffer.from(into.buffer, into.byteOffset, into.byteLength), 0, into.byteLength, position, done),
          ).catch((error: unknown) => Promise.reject(fileError(error, path)));
        return await readBounded(readAt, { path, maxBytes: options.maxBytes, sizeHint: stats.size });
      } finally {
        await call<void>((done) => session.close(handle, done)).catch(() => {});
      }
    },
  };
}

/** An SFTP handle on `path`; a directory some servers refuse to open is `INVALID_PATH`. */
async function openForReading(session: SFTPWrapper, path: string): Promise<Buffer> {
  try {
    return await call<Buffer>((done) => session.open(path, "r", done));
  } catch (error) {
    if (statusOf(error) !== NO_SUCH_FILE && (await isDirectory(session, path))) throw directoryError(path);
    throw fileError(error, path);
  }
}

/**
 * Opening a FIFO (or socket) blocks the single-threaded sftp-server for ever, and every later
 * request on the session behind it, so the type is checked first, links followed as the open
 * would: reads refuse FIFOs and sockets (devices such as /dev/zero stay readable within
 * `maxBytes`), writes anything existing that is no regular file. A path that does not exist is
 * left to the open.
 */
async function refuseBlockingKinds(session: SFTPWrapper, path: string, { writing }: { writing: boolean }): Promise<void> {
  const stats = await call<Stats>((done) => session.stat(path, done)).catch(() => undefined);
  if (!stats || stats.isFile()) return;
  if (writing && stats.isDirectory()) throw directoryError(path);
  if (writing || stats.isFIFO() || stats.isSocket()) throw new CodecallError("INVALID_PATH", `Not a regular file: ${path}`);
}

function directoryError(path: string): CodecallError {
  return new CodecallError("INVALID_PATH", `Is a directory, not a file: ${path}`);
}

/** `mkdir -p` over SFTP; tolerates directories that exist already or appear concurrently. */
async function ensureDirectory(session: SFTPWrapper, dir: string): Promise<void> {
  try {
    await call<void>((done) => session.mkdir(dir, done));
  } catch (error) {
    if (statusOf(error) === NO_SUCH_FILE && posix.dirname(dir) !== dir) {
      await ensureDirectory(session, posix.dirname(dir));
      await call<void>((done) => session.mkdir(dir, done)).catch(async (retry: unknown) => {
        if (!(await isDirectory(session, dir))) throw fileError(retry, dir);
      });
      return;
    }
    // OpenSSH answers a generic failure when the directory exists.
    if (!(await isDirectory(session, dir))) throw fileError(error, dir);
  }
}

async function isDirectory(session: SFTPWrapper, path: string): Promise<boolean> {
  const stats = await call<{ isDirectory(): boolean }>((done) => session.stat(path, done)).catch(() => undefined);
  return stats?.isDirectory() ?? false;
}

function fileError(error: unknown, path: string): CodecallError {
  const status = statusOf(error);
  if (status === NO_SUCH_FILE) return new CodecallError("FILE_NOT_FOUND", `No such file: ${path}`, { cause: error });
  const reason = status === PERMISSION_DENIED ? "permission denied" : error instanceof Error ? error.message : String(error);
  return new CodecallError("ENVIRONMENT_FAILED", `ssh: SFTP failed on ${path}: ${reason}`, { cause: error });
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

function call<T>(start: (done: (error: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}
