// The local readFile reads one descriptor up to the bound: what a script swaps in at the path (a
// FIFO nobody writes to, a device that never ends) can neither hang the host nor fill its memory.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CodecallError } from "@codecall/core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createEnvironment } from "../src/index.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-read-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("refuses a FIFO at once instead of waiting for a writer", async () => {
  execFileSync("mkfifo", [path.join(dir, "pipe")]);
  await symlink("pipe", path.join(dir, "link"));
  const environment = createEnvironment({ cwd: dir });
  for (const name of ["pipe", "link"]) {
    const error = await environment.readFile(name, { maxBytes: 4096 }).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "INVALID_PATH")).toBe(true);
  }
});

it("stops a read of a never-ending device at the bound, through a symlink too", async () => {
  await symlink("/dev/zero", path.join(dir, "zero"));
  const environment = createEnvironment({ cwd: dir });
  const error = await environment.readFile("zero", { maxBytes: 1024 * 1024 }).catch((caught: unknown) => caught);
  expect((error as CodecallError).code).toBe("FILE_TOO_LARGE");
  expect((error as CodecallError).details).toMatchObject({ limit: 1024 * 1024 });
});
