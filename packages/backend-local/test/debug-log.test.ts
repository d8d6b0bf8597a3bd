/** The backend namespace on the local backend: every spawned command and its exit, secrets masked. */
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { afterEach, expect, it, vi } from "vitest";
import { createEnvironment } from "../src/index.js";

afterEach(() => {
  vi.unstubAllEnvs();
  setDebugSink();
  setDebugNamespaces(undefined);
});

it("writes the command line (host secrets masked, variable names without values) and how it ended", async () => {
  vi.stubEnv("LOCAL_DEBUG_API_KEY", "host-secret-value-5678");
  const lines: string[] = [];
  setDebugSink((line) => lines.push(line));
  setDebugNamespaces("backend");
  const cwd = await realpath(tmpdir());
  const environment = createEnvironment({ cwd });
  try {
    const result = await environment.execute("echo host-secret-value-5678 >/dev/null; exit 3", {
      env: { CODECALL_RPC_TOKEN: "run-token-value-1234" },
    });
    expect(result.exitCode).toBe(3);
  } finally {
    await environment.close();
  }
  expect(lines).toEqual([
    expect.stringMatching(
      new RegExp(
        `^codecall:backend \\+\\d+ms local pid (\\d+): echo host-s\\.\\.\\.5678 >/dev/null; exit 3 \\[cwd ${cwd}; env \\+ CODECALL_RPC_TOKEN\\]$`,
      ),
    ),
    expect.stringMatching(/^codecall:backend \+\d+ms local pid \d+: exited 3 after \d+ ms$/),
  ]);
  const pids = lines.map((line) => /local pid (\d+)/.exec(line)?.[1]);
  expect(pids[0]).toBe(pids[1]);
  expect(lines.join("\n")).not.toMatch(/host-secret-value-5678|run-token-value-1234/);
});
