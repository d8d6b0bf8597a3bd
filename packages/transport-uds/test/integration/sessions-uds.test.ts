import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { describeSessions } from "@codecall/conformance";
import { createCodeSession, type SpawnOptions } from "@codecall/core";
import { createTransport } from "../../src/index.js";

// The local backend's sessions: @codecall/backend-local cannot depend on a transport (the
// transports test against it), so its session suite runs here, with the transport made for it.
describeSessions({
  name: "local + uds",
  createEnvironment: ({ env }) => createEnvironment({ env: { ...process.env, ...env } }),
  transport: () => createTransport(),
});

/** The local backend, its spawns (in a session: only the kernel's) `seconds` slow to start. */
function slowSpawns(local: LocalEnvironment, seconds: number): LocalEnvironment {
  return new Proxy(local, {
    get(target, key) {
      if (key === "spawn") return (command: string, options?: SpawnOptions) => target.spawn(`sleep ${seconds}; ${command}`, options);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("a session's kernel start", () => {
  it("is not its first cell's time: a kernel 2 s slow to start still runs a cell limited to 1 s", async () => {
    const local = createEnvironment();
    const slowToStart = slowSpawns(local, 2);
    const session = createCodeSession({ environment: slowToStart, transport: createTransport(), tools: [], limits: { timeoutMs: 1_000 } });
    try {
      expect(await session.run("print('started')")).toMatchObject({ status: "success", output: "started\n", state: "fresh" });
      const stuck = await session.run("import time\ntime.sleep(30)");
      expect(stuck).toMatchObject({ status: "timeout", state: "kept" });
      // Aborted while its kernel starts: the cell never runs, and the kernel is kept for the next.
      await session.reset();
      const aborted = await session.run("print('never')", { signal: AbortSignal.timeout(500) });
      expect(aborted).toMatchObject({ status: "interrupted", state: "fresh" });
      expect(aborted.output).not.toContain("never");
      expect(await session.run("print('next')")).toMatchObject({ status: "success", output: "next\n", state: "kept" });
    } finally {
      await session.close();
      await local.close();
    }
  }, 60_000);

  it("is waited for by close(): a kernel still starting is closed as soon as it is up, leaving nothing behind", async () => {
    const tempRoot = await mkdtemp(path.join(tmpdir(), "codecall-close-while-starting-"));
    const local = createEnvironment({ tempRoot });
    const slowToStart = slowSpawns(local, 1);
    const session = createCodeSession({ environment: slowToStart, transport: createTransport(), tools: [] });
    try {
      const cell = session.run("print('never')");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await session.close();
      // Nothing of the session is left once close() has returned, and the cell says it never ran.
      expect(await readdir(tempRoot)).toEqual([]);
      const result = await cell;
      expect(result.status).toBe("error");
      expect(result.error).toContain("closed before the cell ran");
    } finally {
      await local.close();
      await rm(tempRoot, { recursive: true, force: true });
    }
  }, 60_000);
});
