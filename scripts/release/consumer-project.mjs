// The stranger's side of the pack test: pack every publishable workspace package the way a
// release does (`pnpm pack`, which builds through `prepack` and rewrites `workspace:` ranges),
// then install the tarballs with npm into a new project outside the workspace.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "./run-command.mjs";

/** The workspace root: two levels above this file. */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The packages a release publishes: every `packages/*` whose manifest is not private.
 * @returns {Promise<Array<{ name: string, version: string, dir: string }>>} `dir` relative to the root
 */
export async function publishablePackages() {
  const packages = [];
  for (const entry of await readdir(path.join(REPO_ROOT, "packages"), { withFileTypes: true })) {
    const manifestPath = path.join(REPO_ROOT, "packages", entry.name, "package.json");
    if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
    const manifest = JSON.parse(await readFile(manifestPath, "utf8"));
    if (!manifest.private) packages.push({ name: manifest.name, version: manifest.version, dir: `packages/${entry.name}` });
  }
  return packages.sort((a, b) => a.name.localeCompare(b.name));
}

/** The file name `pnpm pack` gives a package's tarball (`@codecall/core` → `codecall-core-0.1.0.tgz`). */
export function tarballFileName({ name, version }) {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * Packs every publishable package into `destination`, one at a time (each `prepack` runs turbo,
 * and two turbo builds of the same package at once would write the same dist).
 * @returns {Promise<string[]>} the tarball paths, one per package of `packages`
 */
export async function packWorkspace(packages, destination) {
  await mkdir(destination, { recursive: true });
  await runCommand(
    process.execPath,
    [path.join(REPO_ROOT, "scripts/pnpm.mjs"), "--recursive", "--workspace-concurrency=1", "pack", "--pack-destination", destination],
    { cwd: REPO_ROOT, timeoutMs: 600_000 },
  );
  const missing = packages.filter((pkg) => !existsSync(path.join(destination, tarballFileName(pkg))));
  if (missing.length > 0) {
    throw new Error(`pnpm pack made no tarball for ${missing.map((pkg) => pkg.name).join(", ")} in ${destination}`);
  }
  return packages.map((pkg) => path.join(destination, tarballFileName(pkg)));
}

/**
 * Makes a new npm project in `projectDir` and installs the tarballs into it with npm; third-party
 * dependencies come from the registry (the npm cache first), and so do `extra` packages
 * (`name@range`) a stranger would add beside them.
 */
export async function installTarballs(projectDir, tarballs, extra = []) {
  const relative = path.relative(REPO_ROOT, projectDir);
  if (!relative.startsWith("..") && !path.isAbsolute(relative)) {
    throw new Error(`the consumer project ${projectDir} is inside the workspace ${REPO_ROOT}: set TMPDIR to a directory outside it`);
  }
  await mkdir(projectDir, { recursive: true });
  const manifest = { name: "codecall-pack-test-consumer", version: "1.0.0", private: true, type: "module" };
  await writeFile(path.join(projectDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await runCommand("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, ...extra], {
    cwd: projectDir,
    timeoutMs: 600_000,
  });
}

/** `name@range` of a root devDependency (`typescript` → `typescript@5.9.3`): the version this workspace builds with. */
export async function workspaceDevDependency(name) {
  const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8"));
  const range = manifest.devDependencies?.[name];
  if (range === undefined) throw new Error(`${name} is not a devDependency of the workspace root`);
  return `${name}@${range}`;
}

/** Where Node would find package `name` from `fromDir` (a package folder in `projectDir`): the nearest `node_modules/name` up to the project. */
function locatePackage(fromDir, name, projectDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(candidate)) return candidate;
    if (dir === projectDir || dir === path.dirname(dir)) return undefined;
  }
}

/**
 * The names of the packages installed in `projectDir` that package `name` needs: its dependencies
 * and optional dependencies (not its peers), and theirs, as installed.
 * @returns {Promise<Set<string>>}
 */
export async function dependencyClosure(projectDir, name) {
  const needed = new Set();
  const visited = new Set();
  const queue = [path.join(projectDir, "node_modules", name)];
  while (queue.length > 0) {
    const dir = queue.pop();
    const manifest = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8"));
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = locatePackage(dir, dependency, projectDir);
      if (found === undefined || visited.has(found)) continue;
      visited.add(found);
      needed.add(dependency);
      queue.push(found);
    }
  }
  return needed;
}
