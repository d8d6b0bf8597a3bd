// The guest runtime's own tests, in Python (python/test_*.py): python3 runs them against the
// modules in src/guest/python as they are shipped, without a host. -B and
// PYTHONDONTWRITEBYTECODE: no __pycache__ is left in src. (The same runner is
// `describePythonTests` of @codecall/conformance, which core cannot depend on.)
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const testDir = fileURLToPath(new URL("python/", import.meta.url));
const runtimeDir = fileURLToPath(new URL("../src/guest/python/", import.meta.url));
const modules = readdirSync(testDir)
  .filter((name) => /^test_\w+\.py$/.test(name))
  .map((name) => name.slice(0, -".py".length));

describe("the Python guest runtime, run by python3", () => {
  it.each(modules)(
    "%s",
    (module) => {
      const run = spawnSync("python3", ["-B", "-m", "unittest", module], {
        cwd: testDir,
        encoding: "utf8",
        env: { PATH: process.env.PATH, PYTHONPATH: runtimeDir, PYTHONDONTWRITEBYTECODE: "1" },
        timeout: 120_000,
      });
      expect(run.status, run.stderr || run.error?.message).toBe(0);
    },
    120_000,
  );
});
