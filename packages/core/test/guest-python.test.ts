// Core's own Python, tested in Python: the guest runtime (python/test_*.py, against the modules in
// src/guest/python as they are shipped) and the environment agent (agent-python/test_*.py, against
// src/agent/python and the launcher it loads), both by python3 without a host. -B and PYTHONDONTWRITEBYTECODE: no
// __pycache__ is left in src. (The same runner is `describePythonTests` of @codecall/conformance,
// which core cannot depend on.)
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

function describePython(title: string, tests: string, sources: readonly string[]): void {
  const testDir = fileURLToPath(new URL(tests, import.meta.url));
  const pythonPath = sources.map((source) => fileURLToPath(new URL(source, import.meta.url))).join(":");
  const modules = readdirSync(testDir)
    .filter((name) => /^test_\w+\.py$/.test(name))
    .map((name) => name.slice(0, -".py".length));
  describe(title, () => {
    it.each(modules)(
      "%s",
      (module) => {
        const run = spawnSync("python3", ["-B", "-m", "unittest", module], {
          cwd: testDir,
          encoding: "utf8",
          env: { PATH: process.env.PATH, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1" },
          timeout: 120_000,
        });
        expect(run.status, run.stderr || run.error?.message).toBe(0);
      },
      120_000,
    );
  });
}

describePython("the Python guest runtime, run by python3", "python/", ["../src/guest/python/"]);
// The agent loads the launcher as a module (see agent-boot.ts).
describePython("the environment agent, run by python3", "agent-python/", ["../src/agent/python/", "../src/guest/python/"]);
