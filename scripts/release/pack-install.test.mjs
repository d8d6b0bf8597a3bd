// The stranger's install, end to end: pack every publishable package, install the tarballs with
// npm into a fresh project under the OS temp dir, and there check each package's manifest, files
// and README, load every package with require() and import(), run an agent program (executeCode
// with a custom tool) and the CLI. Keep the project for a look with CODECALL_PACK_TEST_KEEP=1.
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { installTarballs, packWorkspace, publishablePackages, REPO_ROOT } from "./consumer-project.mjs";
import { fileProblems, manifestProblems, readmeLinkProblems, workspaceManifestProblems } from "./package-checks.mjs";
import { runCommand } from "./run-command.mjs";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const packages = await publishablePackages();
const scratch = await mkdtemp(path.join(tmpdir(), "codecall-pack-test-"));
const project = path.join(scratch, "project");

/** Runs `node args` in the consumer project. */
const node = (args) => runCommand(process.execPath, args, { cwd: project, timeoutMs: 120_000 });

before(
  async () => {
    console.log(`pack test: working in ${scratch}`);
    const packStarted = performance.now();
    const tarballs = await packWorkspace(packages, path.join(scratch, "tarballs"));
    const installStarted = performance.now();
    await installTarballs(project, tarballs);
    for (const fixture of ["agent.mjs", "ai-sdk-agent.mjs", "load-all.cjs", "cli-tools.mjs", "cli-script.py"]) {
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
  test("every package loads with require() and with import()", async () => {
    const { stdout } = await node(["load-all.cjs", ...packages.map((pkg) => pkg.name)]);
    assert.equal(stdout.trim().split("\n").length, packages.length, stdout);
  });

  test("an agent program runs executeCode with a custom tool on the local backend over uds", async () => {
    const { stdout } = await node(["agent.mjs"]);
    assert.equal(stdout, "total 10\nfrom-terminal\nstatus=success toolCalls=5 backend=local transport=uds\n");
  });

  test("an AI SDK agent (ai installed as the peer) runs execute_code, whose script calls a converted AI SDK tool", async () => {
    const { stdout } = await node(["ai-sdk-agent.mjs"]);
    assert.equal(stdout, "status: success\noutput:\n5\n\n");
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
