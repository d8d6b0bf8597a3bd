// The command's compile cache (program-cache.ts): kept after a first run, used as it is by the
// next, rewritten when it is damaged or V8 refuses it, and never read from where someone else
// could have written it (cached data is code V8 runs as it finds it).
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { parse, type Node } from "acorn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileCacheFile, readCache, writeCache } from "../src/program-cache.js";
import { BIN, runCli } from "./support.js";

const PROGRAM = path.join(path.dirname(BIN), "program.cjs");
const asRoot = process.getuid?.() === 0;

let dir: string;
let program: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-program-cache-"));
  await writeFile(path.join(dir, "hi.py"), 'print("hi")\n');
  program = await readFile(PROGRAM);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `codecall run hi.py` with `env` (its compile cache in `cache`, unless env says otherwise); asserts it ran. */
async function runWithCache(cache: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const result = await runCli(["run", "hi.py"], { cwd: dir, env: { ...process.env, CODECALL_COMPILE_CACHE: cache, ...env } });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("hi\n");
  expect(result.code).toBe(0);
}

/** The cache file of this build in `cache`. */
const cacheFileIn = (cache: string) => compileCacheFile(program, { CODECALL_COMPILE_CACHE: cache })!;

/** A cache file's content as writeCache makes it, around `data`. */
async function writtenAround(data: Buffer): Promise<Buffer> {
  const scratch = await mkdtemp(path.join(dir, "scratch-"));
  await chmod(scratch, 0o700);
  writeCache(path.join(scratch, "x.cache"), () => data);
  return readFile(path.join(scratch, "x.cache"));
}

describe("codecall's compile cache", () => {
  it("is written by a first run, private to the user, and used as it is by the next", async () => {
    const cache = path.join(dir, "fresh", "codecall");
    await runWithCache(cache);
    expect(await readdir(cache)).toEqual([path.basename(cacheFileIn(cache))]);
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    const written = await stat(cacheFileIn(cache));
    expect(written.mode & 0o777).toBe(0o600);
    expect(written.size).toBeGreaterThan(100_000);
    expect(readCache(cacheFileIn(cache))?.length).toBe(written.size - 24);
    await runWithCache(cache);
    // Rewritten only when V8 refuses it: the same file means the second run started from it.
    expect((await stat(cacheFileIn(cache))).mtimeMs).toBe(written.mtimeMs);
  });

  it("is not given to V8 when a byte of it changed (V8 would run it: a crash, or other code), and is written anew", async () => {
    const cache = path.join(dir, "damaged");
    await runWithCache(cache);
    const file = cacheFileIn(cache);
    const content = await readFile(file);
    content.writeUInt8(content.readUInt8(content.length >> 1) ^ 0x41, content.length >> 1);
    await writeFile(file, content);
    expect(readCache(file)).toBeUndefined();
    await runWithCache(cache);
    expect(readCache(file)?.length).toBeGreaterThan(100_000);
  });

  it("is rewritten when V8 refuses what is there, and the run goes on", async () => {
    const cache = path.join(dir, "refused");
    await mkdir(cache, { mode: 0o700 });
    const file = cacheFileIn(cache);
    // Whole (its checksum holds), but not V8's: V8 says so, and the run compiles.
    await writeFile(file, await writtenAround(Buffer.from("not V8's code cache")), { mode: 0o600 });
    expect(readCache(file)?.toString()).toBe("not V8's code cache");
    await runWithCache(cache);
    expect((await stat(file)).size).toBeGreaterThan(100_000);
  });

  it("is neither read nor written in a directory others can write, and the run goes on", async () => {
    const cache = path.join(dir, "shared");
    await mkdir(cache);
    await chmod(cache, 0o777);
    const file = cacheFileIn(cache);
    await writeFile(file, await writtenAround(Buffer.from("planted")), { mode: 0o600 });
    await runWithCache(cache);
    expect(await readdir(cache)).toEqual([path.basename(file)]);
    expect(readCache(file)).toBeUndefined();
  });

  it("is not read below a directory others can write (they could swap what is under it), nor through a symlink", async () => {
    const open = path.join(dir, "open-parent");
    await mkdir(open);
    await chmod(open, 0o777);
    const cache = path.join(open, "codecall");
    await mkdir(cache, { mode: 0o700 });
    const file = cacheFileIn(cache);
    await writeFile(file, await writtenAround(Buffer.from("x")), { mode: 0o600 });
    expect(readCache(file)).toBeUndefined();
    // A sticky directory (/tmp) lets others add entries, not move ours: that is safe.
    await chmod(open, 0o1777);
    expect(readCache(file)?.toString()).toBe("x");
    const linked = path.join(cache, "linked.cache");
    await symlink(file, linked);
    expect(readCache(linked)).toBeUndefined();
  });

  it("takes absolute directories only (the XDG spec ignores a relative XDG_CACHE_HOME)", async () => {
    expect(compileCacheFile(program, { CODECALL_COMPILE_CACHE: "cache" })).toBeUndefined();
    expect(compileCacheFile(program, { XDG_CACHE_HOME: "cache", HOME: "/home/someone" })).toBe(
      compileCacheFile(program, { XDG_CACHE_HOME: "/home/someone/.cache" }),
    );
    await runWithCache("relative-cache");
    await expect(stat(path.join(dir, "relative-cache"))).rejects.toThrow(/ENOENT/);
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE=1, as Node's own", async () => {
    const cache = path.join(dir, "disabled");
    await runWithCache(cache, { NODE_DISABLE_COMPILE_CACHE: "1" });
    await expect(stat(cache)).rejects.toThrow(/ENOENT/);
    expect(compileCacheFile(program, { NODE_DISABLE_COMPILE_CACHE: "1" })).toBeUndefined();
  });

  it("goes without a cache where none can be written", async () => {
    // A file where the directory would be: nothing can be made there.
    const blocked = path.join(dir, "blocked");
    await writeFile(blocked, "");
    await runWithCache(path.join(blocked, "codecall"));
  });

  it("makes no home that is not there, and no more than the cache directory and its parent", async () => {
    await runWithCache("", { XDG_CACHE_HOME: "", CODECALL_COMPILE_CACHE: "", HOME: path.join(dir, "no-home") });
    await expect(stat(path.join(dir, "no-home"))).rejects.toThrow(/ENOENT/);
    const home = path.join(dir, "home-without-cache");
    await mkdir(home, { mode: 0o700 });
    await runWithCache("", { XDG_CACHE_HOME: "", CODECALL_COMPILE_CACHE: "", HOME: home });
    expect(await readdir(path.join(home, ".cache", "codecall"))).toHaveLength(1);
  });

  // Only root can run with a home another user owns (chown needs it); CI runs as root.
  it.skipIf(!asRoot)("makes nothing in another user's home (root with their HOME, as sudo -E)", async () => {
    const home = path.join(dir, "someone-else");
    await mkdir(path.join(home, ".cache"), { recursive: true, mode: 0o700 });
    await chown(home, 65534, 65534);
    await chown(path.join(home, ".cache"), 65534, 65534);
    await runWithCache("", { XDG_CACHE_HOME: "", CODECALL_COMPILE_CACHE: "", HOME: home });
    expect(await readdir(path.join(home, ".cache"))).toEqual([]);
  });

  it("is named by a CRC-32 of the program as it is on disk, the V8 that compiles it and the architecture", () => {
    const sum = crc32(program).toString(16).padStart(8, "0");
    expect(compileCacheFile(program, { XDG_CACHE_HOME: "/home/someone/.cache" })).toBe(
      `/home/someone/.cache/codecall/program-${sum}-${process.versions.v8}-${process.arch}.cache`,
    );
    // A program edited in place, to the same length (patch-package, a debugging session): another file.
    const edited = Buffer.from(program);
    edited.writeUInt8(edited.readUInt8(edited.length >> 1) ^ 1, edited.length >> 1);
    expect(compileCacheFile(edited, {})).not.toBe(compileCacheFile(program, {}));
  });

  it("keeps the caches of the last few programs only", async () => {
    const cache = path.join(dir, "many");
    await mkdir(cache, { mode: 0o700 });
    for (let index = 0; index < 10; index += 1) {
      writeCache(path.join(cache, `program-${index}.cache`), () => Buffer.from(String(index)));
      // Apart in time: the oldest go.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await readdir(cache)).sort()).toEqual([2, 3, 4, 5, 6, 7, 8, 9].map((index) => `program-${index}.cache`));
  });
});

describe("codecall under --enable-source-maps", () => {
  it("names the TypeScript sources in stack traces (Node maps the modules it loads itself: the program is required, uncached)", async () => {
    await writeFile(path.join(dir, "failing-backend.mjs"), 'export function createEnvironment() { throw new Error("no environment"); }\n');
    const cache = path.join(dir, "source-maps");
    const result = await runCli(["run", "--backend", "./failing-backend.mjs", "hi.py"], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: "--enable-source-maps", CODECALL_COMPILE_CACHE: cache },
    });
    expect(result.stderr).toContain("Error: no environment");
    expect(result.stderr).toMatch(/at createBackendEnvironment \(\S*\/cli\/src\/run-command\.ts:\d+:\d+\)/);
    expect(result.code).toBe(1);
    await expect(stat(cache)).rejects.toThrow(/ENOENT/);
  });
});

describe("readCache and writeCache", () => {
  // Only root can give a file to another user (chown); CI runs as root.
  it.skipIf(!asRoot)("readCache refuses a file another user owns (as root, which can make one)", async () => {
    const cache = path.join(dir, "others");
    await mkdir(cache, { mode: 0o700 });
    const file = path.join(cache, "program.cache");
    await writeFile(file, await writtenAround(Buffer.from("someone else's")), { mode: 0o600 });
    expect(readCache(file)?.toString()).toBe("someone else's");
    await chown(file, 65534, 65534);
    expect(readCache(file)).toBeUndefined();
  });

  it("readCache refuses a file others can write, one without the header, and reads nothing that is not there", async () => {
    const cache = path.join(dir, "writable-file");
    await mkdir(cache, { mode: 0o700 });
    const file = path.join(cache, "program.cache");
    await writeFile(file, await writtenAround(Buffer.from("x")));
    expect(readCache(file)?.toString()).toBe("x");
    await chmod(file, 0o622);
    expect(readCache(file)).toBeUndefined();
    await writeFile(path.join(cache, "bare.cache"), "x".repeat(100), { mode: 0o600 });
    expect(readCache(path.join(cache, "bare.cache"))).toBeUndefined();
    expect(readCache(path.join(cache, "none.cache"))).toBeUndefined();
  });

  it("writeCache leaves nothing behind when making the content fails", async () => {
    const cache = path.join(dir, "failing");
    writeCache(path.join(cache, "program.cache"), () => {
      throw new Error("no cached data here");
    });
    expect(await readdir(cache)).toEqual([]);
  });
});

describe("the command's build", () => {
  it("holds no import() of its own: each goes through the loader's importer", () => {
    const code = program.toString("utf8");
    const imports: Node[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== "object" || node === null) return;
      if ((node as Node).type === "ImportExpression") imports.push(node as Node);
      for (const value of Object.values(node)) visit(value);
    };
    visit(parse(code, { ecmaVersion: "latest", sourceType: "script" }));
    expect(imports).toEqual([]);
    expect(code).toContain("__codecallImport(");
    expect(code.startsWith("module.exports = function (exports, require, module, __filename, __dirname, __codecallImport) {")).toBe(true);
  });
});
