/**
 * Runs the command's build (`program.cjs`, all of the command's code in one script) with V8's
 * compile cache: Node 20 compiles every module of every start anew, and compiling is a fifth of a
 * short `codecall run`. The first run compiles, runs, and keeps what V8 compiled (the functions it
 * ran, too) in a file of the user's cache directory; later runs start from it. Node ≥ 22.1 can
 * cache ES modules itself (`module.enableCompileCache`), but not a script run through `vm`, so
 * every Node takes this path.
 *
 * The cached data is code that V8 runs as it finds it, so it is trusted as a program would be:
 * read only from a directory whose every ancestor only the user or root can change (as OpenSSH
 * treats `~/.ssh`), from a regular file of the user's that no one else can write, never through a
 * symlink. V8 refuses data of another V8 or other flags, but checks the source by its length only
 * and the data not at all (a flipped byte can crash the process): the file's name holds a CRC-32 of
 * the program as it is on disk, and the file a CRC-32 of the data, checked before V8 sees it.
 * Anything wrong with the cache only costs the compile: the command runs the same without one.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it does Node's own; `CODECALL_COMPILE_CACHE`
 * names another directory (an absolute path).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import vm from "node:vm";
import * as zlib from "node:zlib";

/** What program.cjs exports: the program, called with what a CommonJS module gets and an importer. */
type ProgramFunction = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  importModule: (specifier: string) => Promise<unknown>,
) => void;

/** What program.cjs exports (see cli-process.ts). */
interface Program {
  runCliProcess(beforeExit: () => void): Promise<never>;
}

/** The first bytes of a cache file, then the CRC-32 of the data after them (little-endian). */
const MAGIC = Buffer.from("codecall-v8-cache-1\n");
const HEADER_BYTES = MAGIC.length + 4;

/** The sticky bit (S_ISVTX, which `fs.constants` lacks). */
const STICKY = 0o1000;

/** How many programs' caches a directory keeps (one per build and Node): ~0.5 MB each. */
const KEPT_CACHES = 8;

/** Runs the program at `file` (see the module comment) and ends the process. */
export async function runCachedProgram(file: string, importModule: (specifier: string) => Promise<unknown>): Promise<never> {
  const start = (program: ProgramFunction, beforeExit: () => void = () => {}) => {
    const module = { exports: {} };
    program(module.exports, createRequire(file), module, file, path.dirname(file), importModule);
    return (module.exports as Program).runCliProcess(beforeExit);
  };
  // Node maps stack frames through source maps for the modules it loads itself, not for `vm`'s.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return start(createRequire(file)(file) as ProgramFunction);
  const bytes = readFileSync(file);
  const cacheFile = compileCacheFile(bytes);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  // Run as Node runs a CommonJS module: in a function given `module` (on the file's first line, so
  // that every other line keeps its number).
  const script = new vm.Script(`(function (module) {${bytes.toString("utf8")}\n})`, { filename: file, cachedData });
  const holder = { exports: {} };
  (script.runInThisContext() as (module: { exports: unknown }) => void)(holder);
  const needsCache = cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true);
  return start(holder.exports as ProgramFunction, () => {
    if (needsCache) writeCache(cacheFile, () => script.createCachedData());
  });
}

/**
 * Where the compile cache of the program `bytes` is kept, by the program's CRC-32, the V8 that
 * compiles it and the architecture; undefined when it is turned off or has no proper home.
 */
export function compileCacheFile(bytes: Uint8Array, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const directory = cacheDirectory(env);
  // zlib.crc32: Node ≥ 20.15 (every Node codecall supports); a runtime without it goes uncached.
  if (directory === undefined || typeof zlib.crc32 !== "function") return undefined;
  const sum = zlib.crc32(bytes).toString(16).padStart(8, "0");
  return path.join(directory, `program-${sum}-${process.versions.v8}-${process.arch}.cache`);
}

/** The cache directory `env` names: absolute paths only (the XDG spec ignores a relative XDG_CACHE_HOME). */
function cacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === "1") return undefined;
  if (env.CODECALL_COMPILE_CACHE) return path.isAbsolute(env.CODECALL_COMPILE_CACHE) ? env.CODECALL_COMPILE_CACHE : undefined;
  let base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  try {
    base ??= path.join(env.HOME || homedir(), ".cache");
  } catch {
    return undefined;
  }
  return path.isAbsolute(base) ? path.join(base, "codecall") : undefined;
}

/** The cached data in `file`, when it is safe to give V8 (see the module comment) and whole; else undefined. */
export function readCache(file: string): Buffer | undefined {
  const directory = safeDirectory(path.dirname(file));
  if (directory === undefined) return undefined;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path.join(directory, path.basename(file)), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || !ownAndPrivate(stats)) return undefined;
    const content = readFileSync(descriptor);
    if (content.length <= HEADER_BYTES || !content.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const data = content.subarray(HEADER_BYTES);
    return zlib.crc32(data) === content.readUInt32LE(MAGIC.length) ? data : undefined;
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Writes what `content` makes to `file`, behind its header, through a temporary file renamed over
 * it (concurrent runs each write a whole file, and a reader never sees half of one), making the
 * missing directories on the way where the user owns their parent, and keeps the directory to the
 * last few programs' caches. Any failure leaves things as they were: a cache is never worth an error.
 */
export function writeCache(file: string, content: () => Buffer): void {
  const directory = makeDirectory(path.dirname(file)) ? safeDirectory(path.dirname(file)) : undefined;
  if (directory === undefined) return;
  const target = path.join(directory, path.basename(file));
  // The temporary name holds this process's pid: what is there is this run's.
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    const data = content();
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header);
    header.writeUInt32LE(zlib.crc32(data), MAGIC.length);
    writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600, flag: "wx" });
    renameSync(temporary, target);
    pruneCaches(directory);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // There is no directory to leave it in.
    }
  }
}

/** Removes all but the most recently written program caches in `directory`. */
function pruneCaches(directory: string): void {
  const caches = readdirSync(directory)
    .filter((name) => /^program-.*\.cache$/.test(name))
    .map((name) => ({ name, written: lstatSync(path.join(directory, name)).mtimeMs }))
    .sort((a, b) => b.written - a.written);
  for (const { name } of caches.slice(KEPT_CACHES)) rmSync(path.join(directory, name), { force: true });
}

/**
 * `directory` with its symlinks resolved, when it is the user's own and no one else can change it
 * or any directory above it; else undefined. Checked on the resolved path, which no one else can
 * then swap under the file that is opened there.
 */
function safeDirectory(directory: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(directory);
    if (!ownAndPrivate(statSync(real))) return undefined;
    for (let above = path.dirname(real); ; above = path.dirname(above)) {
      if (!guardedAncestor(statSync(above))) return undefined;
      if (path.dirname(above) === above) return real;
    }
  } catch {
    return undefined;
  }
}

/**
 * Makes `directory` (0700) if it is missing, and its parent if that is missing too (`~/.cache`
 * where there is none yet), each only inside a directory the user or root owns that no one else
 * can change: not a home of another user's (`sudo -E`), nor a home that does not exist.
 */
function makeDirectory(directory: string, missingAllowed = 2): boolean {
  try {
    return statSync(directory).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || missingAllowed === 0) return false;
  }
  const parent = path.dirname(directory);
  if (parent === directory || !makeDirectory(parent, missingAllowed - 1)) return false;
  try {
    if (!guardedAncestor(statSync(parent))) return false;
    mkdirSync(directory, { mode: 0o700 });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EEXIST";
  }
}

/** The user's own, and writable by no one else (where there are users: not on Windows). */
function ownAndPrivate(stats: { uid: number; mode: number }): boolean {
  if (typeof process.getuid !== "function") return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/**
 * A directory above the cache that no one but the user and root can change the entries of: theirs,
 * and either writable by no one else or sticky (/tmp: others can add entries, not move ours).
 */
function guardedAncestor(stats: { uid: number; mode: number }): boolean {
  if (typeof process.getuid !== "function") return true;
  const owner = stats.uid === 0 || stats.uid === process.getuid();
  return owner && ((stats.mode & 0o022) === 0 || (stats.mode & STICKY) !== 0);
}
