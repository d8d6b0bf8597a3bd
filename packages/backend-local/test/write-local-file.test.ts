// The local writeFile and openFileWriter open one descriptor without waiting: what a script put at
// the path (a FIFO nobody reads, or a link to one) is refused at once, never waited on with a libuv
// thread held for ever (four such writes would stall every file operation of the host).
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CodecallError } from "@codecall/core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createEnvironment } from "../src/index.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-write-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("refuses a FIFO at once instead of waiting for a reader", async () => {
  execFileSync("mkfifo", [path.join(dir, "pipe")]);
  await symlink("pipe", path.join(dir, "link"));
  const environment = createEnvironment({ cwd: dir });
  for (const name of ["pipe", "link"]) {
    for (const write of [() => environment.writeFile(name, "hello"), () => environment.openFileWriter(name)]) {
      const error = await write().catch((caught: unknown) => caught);
      expect(CodecallError.isInstance(error, "INVALID_PATH")).toBe(true);
      expect((error as Error).message).toContain(path.join(dir, name));
    }
  }
});

it("writes a file whole, making its parents, and replaces an existing one with the mode asked for", async () => {
  const environment = createEnvironment({ cwd: dir });
  await environment.writeFile("a/b/new.txt", "first\n", { mode: 0o600 });
  expect(await readFile(path.join(dir, "a/b/new.txt"), "utf8")).toBe("first\n");
  expect((await stat(path.join(dir, "a/b/new.txt"))).mode & 0o777).toBe(0o600);
  await writeFile(path.join(dir, "old.txt"), "a longer old content\n", { mode: 0o644 });
  await environment.writeFile("old.txt", new Uint8Array([0, 255, 10]), { mode: 0o640 });
  expect(await readFile(path.join(dir, "old.txt"))).toEqual(Buffer.from([0, 255, 10]));
  expect((await stat(path.join(dir, "old.txt"))).mode & 0o777).toBe(0o640);
  const error = await environment.writeFile("a", "x").catch((caught: unknown) => caught);
  expect(CodecallError.isInstance(error, "INVALID_PATH")).toBe(true);
});

it("takes a trailing slash as a directory, as a shell does: writing 'out/' creates no file named 'out'", async () => {
  const environment = createEnvironment({ cwd: dir });
  await expect(environment.writeFile("out/", "x")).rejects.toSatisfy(
    (error: unknown) => CodecallError.isInstance(error) && error.code === "INVALID_PATH" && /Is a directory/.test(error.message),
  );
  await expect(stat(path.join(dir, "out"))).rejects.toMatchObject({ code: "ENOENT" });
  await environment.writeFile("notes.txt", "x");
  for (const under of ["notes.txt/", "notes.txt/inner"]) {
    await expect(environment.readFile(under)).rejects.toSatisfy(
      (error: unknown) => CodecallError.isInstance(error) && error.code === "INVALID_PATH" && /Not a directory/.test(error.message),
    );
  }
});
