/**
 * `describePythonTests()`: runs a plugin's own tests of its guest Python — unittest modules named
 * `test_*.py` in one directory — with python3, one case per module, without a host. `-B` and
 * `PYTHONDONTWRITEBYTECODE`: nothing compiled is left beside the sources.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** How long one module's tests may take (they start processes and threads on a loaded machine). */
const TIMEOUT_MS = 120_000;

export interface PythonTestsOptions {
  /** Suite title, e.g. "the file client, run by python3". */
  title: string;
  /** The directory of the `test_*.py` modules; they run with it as the working directory. */
  testDir: string;
  /** Directories the tests import from, in order. */
  pythonPath: readonly string[];
  /** Python interpreter command (default `python3`). */
  interpreter?: string;
}

export function describePythonTests(options: PythonTestsOptions): void {
  const modules = readdirSync(options.testDir)
    .filter((name) => /^test_\w+\.py$/.test(name))
    .map((name) => name.slice(0, -".py".length));
  describe(options.title, () => {
    it.each(modules)(
      "%s",
      (module) => {
        const run = spawnSync(options.interpreter ?? "python3", ["-B", "-m", "unittest", module], {
          cwd: options.testDir,
          encoding: "utf8",
          env: { PATH: process.env.PATH, PYTHONPATH: options.pythonPath.join(":"), PYTHONDONTWRITEBYTECODE: "1" },
          timeout: TIMEOUT_MS,
        });
        expect(run.status, run.stderr || run.error?.message).toBe(0);
      },
      TIMEOUT_MS,
    );
  });
}
