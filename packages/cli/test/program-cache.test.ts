// The command's compile cache (program-cache.ts): kept after a first run, used as it is by the
// next, rewritten when V8 refuses it, and never read from where someone else could have written it.
import { createHash } from "node:crypto";
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, type Node } from "acorn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileCacheFile, readOwnFile, writeOwnFile } from "../src/program-cache.js";
import { BIN, runCli } from "./support.js";

const PROGRAM = path.join(path.dirname(BIN), "program.cjs");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-program-cache-"));
  await writeFile(path.join(dir, "hi.py"), 'print("hi")\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `codecall run hi.py` with its compile cache in `cache` (and `env`); asserts it ran. */
async function runWithCache(cache: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const result = await runCli(["run", "hi.py"], { cwd: dir, env: { ...process.env, CODECALL_COMPILE_CACHE: cache, ...env } });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("hi\n");
  expect(result.code).toBe(0);
}

describe("codecall's compile cache", () => {
  it("is written by a first run, private to the user, and used as it is by the next", async () => {
    const cache = path.join(dir, "fresh", "codecall");
    await runWithCache(cache);
    const [name, ...others] = await readdir(cache);
    expect(others).toEqual([]);
    expect(name).toBe(path.basename(compileCacheFile(await readFile(PROGRAM, "utf8"), { CODECALL_COMPILE_CACHE: cache })!));
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    const written = await stat(path.join(cache, name!));
    expect(written.mode & 0o777).toBe(0o600);
    expect(written.size).toBeGreaterThan(100_000);
    await runWithCache(cache);
    // Rewritten only when V8 refuses it: the same file means the second run started from it.
    expect((await stat(path.join(cache, name!))).mtimeMs).toBe(written.mtimeMs);
    expect(await readdir(cache)).toEqual([name]);
  });

  it("is rewritten when V8 refuses what is there, and the run goes on", async () => {
    const cache = path.join(dir, "refused");
    await mkdir(cache, { mode: 0o700 });
    const file = compileCacheFile(await readFile(PROGRAM, "utf8"), { CODECALL_COMPILE_CACHE: cache })!;
    await writeFile(file, "not V8's code cache", { mode: 0o600 });
    await runWithCache(cache);
    expect((await readFile(file)).length).toBeGreaterThan(100_000);
  });

  it("is neither read nor written in a directory others can write, and the run goes on", async () => {
    const cache = path.join(dir, "shared");
    await mkdir(cache);
    await chmod(cache, 0o777);
    const file = compileCacheFile(await readFile(PROGRAM, "utf8"), { CODECALL_COMPILE_CACHE: cache })!;
    await writeFile(file, "planted", { mode: 0o600 });
    await runWithCache(cache);
    expect(await readdir(cache)).toEqual([path.basename(file)]);
    expect(await readFile(file, "utf8")).toBe("planted");
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE=1, as Node's own", async () => {
    const cache = path.join(dir, "disabled");
    await runWithCache(cache, { NODE_DISABLE_COMPILE_CACHE: "1" });
    await expect(stat(cache)).rejects.toThrow(/ENOENT/);
    expect(compileCacheFile(await readFile(PROGRAM, "utf8"), { NODE_DISABLE_COMPILE_CACHE: "1" })).toBeUndefined();
  });

  it("goes without a cache where none can be written", async () => {
    // A file where the directory would be: nothing can be made there.
    const blocked = path.join(dir, "blocked");
    await writeFile(blocked, "");
    await runWithCache(path.join(blocked, "codecall"));
  });

  it("is named by the hash the build writes on the program's first line, under the user's cache directory", async () => {
    const program = await readFile(PROGRAM, "utf8");
    const [header, ...rest] = program.split("\n");
    // The hash is the build's of the program below it (V8 checks cached data against the length only).
    const hash = createHash("sha256").update(rest.join("\n")).digest("hex").slice(0, 32);
    expect(header).toBe(`// codecall program ${hash}`);
    expect(compileCacheFile(program, { XDG_CACHE_HOME: "/home/someone/.cache" })).toBe(
      `/home/someone/.cache/codecall/program-${hash}-${process.version}-${process.arch}.cache`,
    );
    // Another build of the same length is another file.
    const other = program.replace(/codecall program [0-9a-f]{32}/, `codecall program ${"0".repeat(32)}`);
    expect(compileCacheFile(other, {})).not.toBe(compileCacheFile(program, {}));
    expect(compileCacheFile("(function () {})", {})).toBeUndefined();
  });
});

describe("readOwnFile and writeOwnFile", () => {
  it.skipIf(process.getuid?.() !== 0)("refuse a file another user owns (as root, which can make one)", async () => {
    const cache = path.join(dir, "others");
    await mkdir(cache, { mode: 0o700 });
    const file = path.join(cache, "program.cache");
    await writeFile(file, "someone else's", { mode: 0o600 });
    expect(readOwnFile(file)?.toString()).toBe("someone else's");
    await chown(file, 65534, 65534);
    expect(readOwnFile(file)).toBeUndefined();
  });

  it("refuse a file others can write, and read nothing that is not there", async () => {
    const cache = path.join(dir, "writable-file");
    await mkdir(cache, { mode: 0o700 });
    const file = path.join(cache, "program.cache");
    await writeFile(file, "x");
    await chmod(file, 0o622);
    expect(readOwnFile(file)).toBeUndefined();
    expect(readOwnFile(path.join(cache, "none.cache"))).toBeUndefined();
  });

  it("writeOwnFile leaves nothing behind when making the content fails", async () => {
    const cache = path.join(dir, "failing");
    writeOwnFile(path.join(cache, "program.cache"), () => {
      throw new Error("no cached data here");
    });
    expect(await readdir(cache)).toEqual([]);
  });
});

describe("the command's build", () => {
  it("holds no import() of its own: each goes through the loader's importer", async () => {
    const code = await readFile(PROGRAM, "utf8");
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
    expect(code.split("\n")[1]!.startsWith("(function (exports, require, module, __filename, __dirname, __codecallImport) {")).toBe(true);
  });
});
