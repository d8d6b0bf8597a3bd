// The stranger's install, end to end: pack every publishable package, install the tarballs with
// npm into a fresh project under the OS temp dir, and there check each package's manifest, files
// and README, load every entry point with require() and import(), compile a TypeScript consumer of
// every entry point under each moduleResolution, run an agent program (executeCode with a custom
// tool) and the CLI; then install core with one backend alone in another fresh project. Keep the
// projects for a look with CODECALL_PACK_TEST_KEEP=1.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { dependencyClosure, installTarballs, packWorkspace, publishablePackages, REPO_ROOT, workspaceDevDependency } from "./consumer-project.mjs";
import { entryPoints } from "./entry-points.mjs";
import { fileProblems, manifestProblems, readmeLinkProblems, workspaceManifestProblems } from "./package-checks.mjs";
import { runCommand } from "./run-command.mjs";
import { RESOLUTION_MODES, typeErrors, writeTypeConsumer } from "./type-consumers.mjs";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const packages = await publishablePackages();
const scratch = await mkdtemp(path.join(tmpdir(), "codecall-pack-test-"));
const project = path.join(scratch, "project");

/** Runs `node args` in the consumer project (or in `cwd`). */
const node = (args, cwd = project) => runCommand(process.execPath, args, { cwd, timeoutMs: 120_000 });
/** The tarball of each package, by name, once packed. */
const tarballOf = new Map();

/** The entry point specifiers of the installed packages `names`, read from their packed manifests. */
async function installedEntryPoints(projectDir, names) {
  const manifests = await Promise.all(
    names.map(async (name) => JSON.parse(await readFile(path.join(projectDir, "node_modules", name, "package.json"), "utf8"))),
  );
  return manifests.flatMap((manifest) => entryPoints(manifest).map((entry) => entry.specifier));
}

before(
  async () => {
    console.log(`pack test: working in ${scratch}`);
    const packStarted = performance.now();
    const tarballs = await packWorkspace(packages, path.join(scratch, "tarballs"));
    packages.forEach((pkg, index) => tarballOf.set(pkg.name, tarballs[index]));
    const installStarted = performance.now();
    // TypeScript and Node's types at the versions the workspace builds with, for the type consumers.
    await installTarballs(project, tarballs, [await workspaceDevDependency("typescript"), await workspaceDevDependency("@types/node")]);
    for (const fixture of [
      "agent.mjs",
      "ai-sdk-agent.mjs",
      "load-all.cjs",
      "export-names.mjs",
      "cli-tools.mjs",
      "cli-script.py",
      "own-backend.mjs",
      "resolve-own-backend.mjs",
    ]) {
      await copyFile(path.join(FIXTURES, fixture), path.join(project, fixture));
    }
    const seconds = (from, to = performance.now()) => ((to - from) / 1000).toFixed(1);
    console.log(
      `pack test: packed ${packages.length} packages in ${seconds(packStarted, installStarted)}s, npm install took ${seconds(installStarted)}s`,
    );
  },
  { timeout: 1_200_000 },
);

after(async () => {
  if (process.env.CODECALL_PACK_TEST_KEEP === "1") console.log(`pack test: kept ${scratch}`);
  else await rm(scratch, { recursive: true, force: true });
});

describe("each packed package", () => {
  for (const { name, dir } of packages) {
    test(`${name}: manifest, shipped files and README links`, async () => {
      const installed = path.join(project, "node_modules", name);
      const manifest = JSON.parse(await readFile(path.join(installed, "package.json"), "utf8"));
      const workspaceManifest = JSON.parse(await readFile(path.join(REPO_ROOT, dir, "package.json"), "utf8"));
      const problems = [
        ...workspaceManifestProblems(workspaceManifest),
        ...manifestProblems(manifest, dir),
        ...(await fileProblems(installed, manifest, await readFile(path.join(REPO_ROOT, "LICENSE"), "utf8"))),
        ...readmeLinkProblems(await readFile(path.join(installed, "README.md"), "utf8"), REPO_ROOT),
      ];
      assert.deepEqual(problems, [], `${name} as installed from its tarball:\n  ${problems.join("\n  ")}`);
    });
  }
});

describe("in a fresh npm project", () => {
  test("every entry point of every package loads with require() and with import()", async () => {
    const specifiers = await installedEntryPoints(
      project,
      packages.map((pkg) => pkg.name),
    );
    assert.ok(specifiers.includes("@codecall/core/plugin-kit"), specifiers.join());
    const { stdout } = await node(["load-all.cjs", ...specifiers]);
    assert.equal(stdout.trim().split("\n").length, specifiers.length, stdout);
  });

  for (const mode of RESOLUTION_MODES) {
    const kinds = mode.cjs ? "an ES module and a CommonJS file" : "an ES module";
    test(`TypeScript with moduleResolution ${mode.moduleResolution}: ${kinds} importing every entry point get types for every name it exports`, async () => {
      const specifiers = await installedEntryPoints(
        project,
        packages.map((pkg) => pkg.name),
      );
      const exportNames = JSON.parse((await node(["export-names.mjs", ...specifiers])).stdout);
      const dir = path.join(project, `types-${mode.moduleResolution}`);
      await writeTypeConsumer(dir, mode, exportNames);
      const errors = await typeErrors(project, dir);
      assert.deepEqual(errors, [], `tsc -p ${dir}:\n${errors.join("\n")}`);
    });
  }

  test("an agent program runs executeCode with a custom tool on the local backend over uds", async () => {
    const { stdout } = await node(["agent.mjs"]);
    assert.equal(stdout, "total 10\nfrom-terminal\nstatus=success toolCalls=5 backend=local transport=uds\n");
  });

  test("an AI SDK agent (ai installed as the peer) runs execute_code, whose script calls a converted AI SDK tool", async () => {
    const { stdout } = await node(["ai-sdk-agent.mjs"]);
    assert.equal(stdout, "status: success\noutput:\n5\n\n");
  });

  test("a backend of your own, given by path, loads through resolveEnvironment and codecall run --backend", async () => {
    assert.equal((await node(["resolve-own-backend.mjs"])).stdout, "success own hi\n");
    const codecall = path.join(project, "node_modules/.bin/codecall");
    const { stdout } = await runCommand(
      codecall,
      ["run", "cli-script.py", "--backend", "./own-backend.mjs", "--tools", "./cli-tools.mjs", "--json"],
      {
        cwd: project,
        timeoutMs: 120_000,
      },
    );
    assert.equal(JSON.parse(stdout).backend, "own", stdout);
  });
  test("codecall --help and --version", async () => {
    const codecall = path.join(project, "node_modules/.bin/codecall");
    const help = await runCommand(codecall, ["--help"], { cwd: project, timeoutMs: 60_000 });
    assert.match(help.stdout, /codecall run FILE\|- \[options\]/);
    const { version } = packages.find((pkg) => pkg.name === "codecall");
    const printed = await runCommand(codecall, ["--version"], { cwd: project, timeoutMs: 60_000 });
    assert.equal(printed.stdout.trim(), version);
  });

  test("codecall run: a script calls a tool from --tools and a built-in tool", async () => {
    const codecall = path.join(project, "node_modules/.bin/codecall");
    const { stdout } = await runCommand(codecall, ["run", "cli-script.py", "--tools", "./cli-tools.mjs", "--json"], {
      cwd: project,
      timeoutMs: 120_000,
    });
    const result = JSON.parse(stdout);
    assert.deepEqual(
      { status: result.status, output: result.output, toolCallsMade: result.toolCallsMade, backend: result.backend },
      { status: "success", output: "HELLO!\nfrom-terminal\n", toolCallsMade: 2, backend: "local" },
      stdout,
    );
  });
});

describe("core with one backend, alone in a fresh npm project", () => {
  const backend = "@codecall/backend-docker";
  const alone = path.join(scratch, "one-backend");

  before(
    async () => {
      await installTarballs(
        alone,
        ["@codecall/core", backend].map((name) => tarballOf.get(name)),
      );
      await copyFile(path.join(FIXTURES, "load-all.cjs"), path.join(alone, "load-all.cjs"));
    },
    { timeout: 600_000 },
  );

  test(`${backend} pulls in no other codecall package, and another backend's dependencies only where its own need them`, async () => {
    const manifestOf = async (dir) => JSON.parse(await readFile(path.join(REPO_ROOT, dir, "package.json"), "utf8"));
    const own = new Set(Object.keys((await manifestOf(packages.find((pkg) => pkg.name === backend).dir)).dependencies ?? {}));
    const foreign = [];
    for (const { dir } of packages.filter((pkg) => pkg.name.startsWith("@codecall/backend-") && pkg.name !== backend)) {
      for (const dependency of Object.keys((await manifestOf(dir)).dependencies ?? {})) if (!own.has(dependency)) foreign.push(dependency);
    }
    assert.ok(foreign.includes("ssh2") && foreign.includes("modal"), `the other backends' dependencies: ${foreign.join()}`);
    const others = packages.map((pkg) => pkg.name).filter((name) => name !== backend && name !== "@codecall/core");
    const installed = [...foreign, ...others].filter((name) => existsSync(path.join(alone, "node_modules", name)));
    // A package the backend's own dependency tree needs is the backend's (dockerode's docker-modem
    // needs ssh2 for ssh:// engine addresses); anything else came by a manifest of ours.
    const needed = await dependencyClosure(alone, backend);
    assert.deepEqual(
      installed.filter((name) => !needed.has(name)),
      [],
      `installing ${backend} also installed: ${installed.join(", ")}`,
    );
    console.log(
      `pack test: ${backend} installed ${needed.size} packages; of another backend's: ${installed.join(", ") || "none"} (its own dependencies need them)`,
    );
  });

  test(`every entry point of core and ${backend} loads with require() and with import()`, async () => {
    const specifiers = await installedEntryPoints(alone, ["@codecall/core", backend]);
    const { stdout } = await node(["load-all.cjs", ...specifiers], alone);
    assert.equal(stdout.trim().split("\n").length, specifiers.length, stdout);
  });
});
