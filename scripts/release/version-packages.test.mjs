// The release flow's versioning step on a copy of this workspace's manifests: a minor changeset
// for @codecall/core must move every package of the fixed group to the next minor version (not
// to 1.0.0, which unpatched Changesets 2 makes of a peer dependent) and write the changelogs.
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { publishablePackages, REPO_ROOT } from "./consumer-project.mjs";
import { runCommand } from "./run-command.mjs";

/** The next minor version of a 0.x or later version: 0.1.3 → 0.2.0. */
function nextMinor(version) {
  const [major, minor] = version.split(".").map(Number);
  return `${major}.${minor + 1}.0`;
}

test("pnpm version-packages: a minor change to core moves every package to the next minor", async (t) => {
  const copy = await mkdtemp(path.join(tmpdir(), "codecall-version-test-"));
  t.after(() => rm(copy, { recursive: true, force: true }));
  const packages = await publishablePackages();
  for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset/config.json"]) {
    await cp(path.join(REPO_ROOT, file), path.join(copy, file));
  }
  for (const { dir } of packages) {
    await mkdir(path.join(copy, dir), { recursive: true });
    for (const file of ["package.json", "CHANGELOG.md"]) await cp(path.join(REPO_ROOT, dir, file), path.join(copy, dir, file));
  }
  await writeFile(path.join(copy, ".changeset/core-feature.md"), '---\n"@codecall/core": minor\n---\n\nA new option.\n');
  const git = (...args) => runCommand("git", ["-c", "user.name=test", "-c", "user.email=test@example.invalid", ...args], { cwd: copy });
  await git("init", "--quiet");
  await git("add", "--all");
  await git("commit", "--quiet", "--message", "copy");

  await runCommand(path.join(REPO_ROOT, "node_modules/.bin/changeset"), ["version"], { cwd: copy, timeoutMs: 60_000 });

  const core = packages.find((pkg) => pkg.name === "@codecall/core");
  const expected = nextMinor(core.version);
  for (const { name, dir } of packages) {
    const { version } = JSON.parse(await readFile(path.join(copy, dir, "package.json"), "utf8"));
    assert.equal(version, expected, `${name} was versioned ${version}`);
    const changelog = await readFile(path.join(copy, dir, "CHANGELOG.md"), "utf8");
    assert.ok(changelog.startsWith(`# ${name}\n\n## ${expected}\n`), `${name}'s CHANGELOG.md does not start with ${expected}:\n${changelog}`);
  }
  assert.match(await readFile(path.join(copy, core.dir, "CHANGELOG.md"), "utf8"), /### Minor Changes\n\n- [0-9a-f]+: A new option\./);
});
