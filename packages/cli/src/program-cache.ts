/**
 * Runs the command's build (`program.cjs`, all of the command's code in one script) with V8's
 * compile cache: Node 20 compiles every module of every start anew, and compiling is a fifth of a
 * short `codecall run`. The first run compiles, runs, and keeps what V8 compiled (the functions it
 * ran, too) in a file of the user's cache directory; later runs start from it. Node ≥ 22.1 can
 * cache ES modules itself (`module.enableCompileCache`), but not a bundle run through `vm` either,
 * so every Node takes this path.
 *
 * The cached data is code: it is read only from a directory and a file that are the user's own and
 * that no one else can write (as Python trusts its `__pycache__`). V8 refuses data made by another
 * V8 or other flags, but checks the source only by its length: the file is named by the hash of the
 * program that the build writes on its first line (npm gives every installed file the same
 * modification time, and two builds can have one size), Node's version and the architecture.
 * Anything wrong with the cache only costs the compile: the command runs the same without one.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it does Node's own; `CODECALL_COMPILE_CACHE` names
 * another directory.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import vm from "node:vm";

/** What program.cjs is: one function expression, called with what a CommonJS module gets and an importer. */
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

/** Runs the program at `file` (see the module comment) and ends the process. */
export async function runCachedProgram(file: string, importModule: (specifier: string) => Promise<unknown>): Promise<never> {
  const source = readFileSync(file, "utf8");
  const cacheFile = compileCacheFile(source);
  const cachedData = cacheFile === undefined ? undefined : readOwnFile(cacheFile);
  const script = new vm.Script(source, { filename: file, cachedData });
  const module = { exports: {} };
  (script.runInThisContext() as ProgramFunction)(module.exports, createRequire(file), module, file, path.dirname(file), importModule);
  const needsCache = cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true);
  return (module.exports as Program).runCliProcess(() => {
    if (needsCache) writeOwnFile(cacheFile, () => script.createCachedData());
  });
}

/** The first line of program.cjs holds the hash of the rest (see the CLI's tsup.config.ts). */
const PROGRAM_HASH = /^\/\/ codecall program ([0-9a-f]{32})\n/;

/**
 * Where the compile cache of the program whose text is `source` is kept; undefined when it is
 * turned off, has no home, or the program names no hash.
 */
export function compileCacheFile(source: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const hash = PROGRAM_HASH.exec(source)?.[1];
  if (hash === undefined || env.NODE_DISABLE_COMPILE_CACHE === "1") return undefined;
  try {
    const directory = env.CODECALL_COMPILE_CACHE || path.join(env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "codecall");
    return path.join(path.resolve(directory), `program-${hash}-${process.version}-${process.arch}.cache`);
  } catch {
    return undefined;
  }
}

/** The content of `file` when it and its directory are this user's own and only theirs to write; else undefined. */
export function readOwnFile(file: string): Buffer | undefined {
  let descriptor: number | undefined;
  try {
    if (!ownedByUser(statSync(path.dirname(file)))) return undefined;
    descriptor = openSync(file, "r");
    // The file opened, not the name: a swap between a check and the read cannot slip another in.
    if (!ownedByUser(fstatSync(descriptor))) return undefined;
    return readFileSync(descriptor);
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Writes what `content` makes to `file`, in a directory made for the user alone if it is not
 * there, through a temporary file renamed over it (concurrent runs each write a whole file, and a
 * reader never sees half of one). Any failure leaves things as they were: a cache is never worth
 * an error.
 */
export function writeOwnFile(file: string, content: () => Buffer): void {
  const directory = path.dirname(file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (!ownedByUser(statSync(directory))) return;
    writeFileSync(temporary, content(), { mode: 0o600, flag: "wx" });
    renameSync(temporary, file);
  } catch {
    try {
      // The temporary name holds this process's pid: what is there is this run's, half written.
      rmSync(temporary, { force: true });
    } catch {
      // There is no directory to leave it in.
    }
  }
}

/** The user's own, and writable by no one else (where there are users: not on Windows). */
function ownedByUser(stats: { uid: number; mode: number }): boolean {
  if (typeof process.getuid !== "function") return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}
