/**
 * Every Python 3 this machine has, by version, for tests whose subject changes between versions
 * (Python 3.13's `-c` imports linecache before the code runs; 3.11 added PYTHONSAFEPATH): `python3`
 * and the `python3.N` on PATH, and pyenv's installs (`$PYENV_ROOT/versions/*`), whose shims refuse
 * versions not selected.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

/** [version, interpreter] pairs, one interpreter per version, oldest first. */
export function availablePythons(): [string, string][] {
  const candidates = ["python3", ...Array.from({ length: 12 }, (_, minor) => `python3.${minor + 6}`)];
  const root = process.env.PYENV_ROOT;
  if (root) {
    try {
      for (const version of readdirSync(path.join(root, "versions"))) candidates.push(path.join(root, "versions", version, "bin", "python3"));
    } catch {
      // No pyenv installs.
    }
  }
  const found = new Map<string, string>();
  for (const candidate of candidates) {
    const result = spawnSync(candidate, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
    const version = result.status === 0 ? result.stdout.trim() : "";
    if (/^3\.\d+$/.test(version) && !found.has(version)) found.set(version, candidate);
  }
  return [...found].sort(([a], [b]) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
}
