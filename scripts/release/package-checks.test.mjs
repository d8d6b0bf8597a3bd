// The pack test's checks catch what they are there for: each case below is a defect a package
// had or could have, and the check must name it; a sound package must pass.
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "./consumer-project.mjs";
import { fileProblems, manifestProblems, NODE_ENGINES, readmeLinkProblems, REPOSITORY_URL, workspaceManifestProblems } from "./package-checks.mjs";

/** A plugin manifest as it should be after `pnpm pack`. */
function soundPlugin(overrides = {}) {
  return {
    name: "@codecall/tools",
    version: "0.1.0",
    license: "MIT",
    repository: { type: "git", url: `git+${REPOSITORY_URL}.git`, directory: "packages/tools" },
    homepage: `${REPOSITORY_URL}/tree/main/packages/tools#readme`,
    bugs: { url: `${REPOSITORY_URL}/issues` },
    type: "module",
    sideEffects: false,
    engines: { node: NODE_ENGINES },
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js", default: "./dist/index.js" }, "./package.json": "./package.json" },
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    peerDependencies: { "@codecall/core": "^0.1.0" },
    publishConfig: { access: "public" },
    ...overrides,
  };
}

test("a sound plugin manifest has no problems", () => {
  assert.deepEqual(manifestProblems(soundPlugin(), "packages/tools"), []);
});

test("a workspace package without a prepack script is reported (an unbuilt pack ships no code)", () => {
  assert.deepEqual(workspaceManifestProblems({ scripts: { prepack: "turbo run build" } }), []);
  assert.match(workspaceManifestProblems({ scripts: { build: "tsup" } }).join(), /no prepack script/);
});

test("an entry point without a default condition is reported (require() fails on it)", () => {
  const manifest = soundPlugin({ exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } } });
  assert.deepEqual(manifestProblems(manifest, "packages/tools"), ['exports["."] has no "default" condition']);
});

test("a subpath entry point without a typesVersions mapping is reported (node10 resolution finds no types)", () => {
  const kit = { types: "./dist/kit.d.ts", import: "./dist/kit.js", default: "./dist/kit.js" };
  const manifest = soundPlugin({ exports: { ...soundPlugin().exports, "./kit": kit } });
  assert.deepEqual(manifestProblems(manifest, "packages/tools"), [
    'typesVersions["*"]["kit"] must list ./dist/kit.d.ts (TypeScript\'s node10 resolution ignores exports)',
  ]);
  assert.deepEqual(manifestProblems({ ...manifest, typesVersions: { "*": { kit: ["./dist/kit.d.ts"] } } }, "packages/tools"), []);
});

test("an engines range that admits a Node whose require() cannot load the ESM build is reported", () => {
  assert.deepEqual(manifestProblems(soundPlugin({ engines: { node: ">=20" } }), "packages/tools"), [`engines.node is ">=20", not "${NODE_ENGINES}"`]);
});

test("a workspace: range, a missing repository and a bundled core are reported", () => {
  const manifest = soundPlugin({ repository: undefined, dependencies: { "@codecall/core": "workspace:^" } });
  const problems = manifestProblems(manifest, "packages/tools");
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems.join("\n"), /repository must be/);
  assert.match(problems.join("\n"), /dependencies\.@codecall\/core is "workspace:\^"/);
  assert.match(problems.join("\n"), /must not bundle its own @codecall\/core/);
});

test("relative README links and links to files the repository lacks are reported; code is not a link", () => {
  const readme = [
    "See [the core](../core) and [a source](src/index.ts), [below](#usage) and [npm](https://www.npmjs.com/).",
    `[Gone](${REPOSITORY_URL}/blob/main/packages/nope/README.md), [here](${REPOSITORY_URL}/tree/main/packages/core).`,
    "```python",
    "handlers[0](x)",
    "```",
    "[ref]: ./docs/guide.md",
  ].join("\n");
  const problems = readmeLinkProblems(readme, REPO_ROOT);
  assert.equal(problems.length, 4, problems.join("\n"));
  for (const target of ["../core", "src/index.ts", "./docs/guide.md", "packages/nope/README.md"]) {
    assert.ok(
      problems.some((problem) => problem.includes(target)),
      `${target} not reported in:\n${problems.join("\n")}`,
    );
  }
});

test("an unbuilt package (no dist), a foreign LICENSE and shipped sources are reported", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "codecall-pack-checks-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, "package.json"), JSON.stringify(soundPlugin()));
  await writeFile(path.join(dir, "LICENSE"), "Apache-2.0");
  await writeFile(path.join(dir, "README.md"), "# tools");
  await mkdir(path.join(dir, "src"));
  const problems = await fileProblems(dir, soundPlugin(), "MIT License");
  assert.deepEqual(problems, [
    "./dist/index.js (named in package.json) is not in the tarball",
    "./dist/index.d.ts (named in package.json) is not in the tarball",
    "LICENSE differs from the repository's LICENSE",
    "CHANGELOG.md is not in the tarball",
    "src/ is in the tarball (only dist ships)",
  ]);
});
