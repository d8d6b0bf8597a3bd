// What a package must look like once installed from its tarball: the manifest fields npm and a
// reader rely on, the files the manifest points at, the LICENSE, and README links that still work
// where npm shows the README (outside the repository). Each check returns the problems it found.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { typesVersionsProblems } from "./entry-points.mjs";

/** The repository every package points at. */
export const REPOSITORY_URL = "https://github.com/codecall/codecall";

/** Dependency fields whose ranges a consumer's npm resolves. */
const PUBLISHED_DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];

/**
 * The Node versions every package runs on: `require()` loads the ESM build only from Node 20.19 on
 * the 20 line and from 22.12 on the 22 line (unflagged), and the conformance suite's peer vitest
 * (through vite) needs the same. One range for all, as they are released together.
 */
export const NODE_ENGINES = "^20.19.0 || >=22.12.0";

/** Packages that are applications or the base, not plugins: they may depend on core directly. */
const NOT_PLUGINS = new Set(["@codecall/core", "codecall"]);

/**
 * Problems with the manifest of the package published from workspace folder `dir`.
 * @param {Record<string, any>} manifest the package.json found in the installed package
 * @param {string} dir the package's folder relative to the workspace root, e.g. `packages/core`
 * @returns {string[]}
 */
export function manifestProblems(manifest, dir) {
  const problems = [];
  const expect = (ok, message) => ok || problems.push(message);
  expect(manifest.license === "MIT", `license is ${JSON.stringify(manifest.license)}, not "MIT"`);
  expect(
    manifest.repository?.type === "git" && manifest.repository?.url === `git+${REPOSITORY_URL}.git` && manifest.repository?.directory === dir,
    `repository must be { type: "git", url: "git+${REPOSITORY_URL}.git", directory: "${dir}" }`,
  );
  expect(
    typeof manifest.homepage === "string" && manifest.homepage.startsWith(`${REPOSITORY_URL}/tree/main/${dir}`),
    `homepage must point at ${REPOSITORY_URL}/tree/main/${dir}`,
  );
  expect(manifest.bugs?.url === `${REPOSITORY_URL}/issues`, `bugs.url must be ${REPOSITORY_URL}/issues`);
  expect(manifest.type === "module", `type must be "module"`);
  expect(manifest.sideEffects === false, "sideEffects must be false");
  expect(manifest.engines?.node === NODE_ENGINES, `engines.node is ${JSON.stringify(manifest.engines?.node)}, not "${NODE_ENGINES}"`);
  if (manifest.name.startsWith("@"))
    expect(manifest.publishConfig?.access === "public", `publishConfig.access must be "public" for a scoped package`);
  for (const field of PUBLISHED_DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      expect(!/^(workspace|link|file):/.test(range), `${field}.${name} is "${range}": pack must publish a registry range`);
    }
  }
  if (!NOT_PLUGINS.has(manifest.name)) {
    expect(manifest.peerDependencies?.["@codecall/core"] !== undefined, "a plugin names @codecall/core in peerDependencies");
    expect(manifest.dependencies?.["@codecall/core"] === undefined, "a plugin must not bundle its own @codecall/core (dependencies)");
  }
  problems.push(...exportsProblems(manifest.exports), ...typesVersionsProblems(manifest));
  return problems;
}

/**
 * Problems with a package's manifest in the workspace, before packing (pack drops the lifecycle
 * scripts from the manifest it ships).
 * @param {Record<string, any>} manifest the package.json in the workspace
 * @returns {string[]}
 */
export function workspaceManifestProblems(manifest) {
  return typeof manifest.scripts?.prepack === "string" ? [] : ["no prepack script in the workspace: packing an unbuilt checkout would ship no code"];
}

/**
 * Every entry point must resolve for TypeScript (`types` first), ESM (`import`) and CommonJS
 * (`default`: Node >= 20.19 serves require() from the ESM build; without it require() fails).
 */
function exportsProblems(exportsField) {
  if (typeof exportsField !== "object" || exportsField === null) return ["exports map is missing"];
  const problems = [];
  for (const [subpath, target] of Object.entries(exportsField)) {
    if (typeof target === "string") continue;
    const conditions = Object.keys(target);
    if (conditions[0] !== "types") problems.push(`exports["${subpath}"]: "types" must come first`);
    for (const condition of ["import", "default"]) {
      if (!(condition in target)) problems.push(`exports["${subpath}"] has no "${condition}" condition`);
    }
  }
  return problems;
}

/** Every file path the manifest points at (exports, main, types, bin), relative to the package. */
function manifestTargets(manifest) {
  const targets = [manifest.main, manifest.types];
  const walk = (node) => {
    if (typeof node === "string") targets.push(node);
    else if (node && typeof node === "object") Object.values(node).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  return [...new Set(targets.filter((target) => typeof target === "string"))];
}

/**
 * Problems with the files of an installed package: what the manifest points at must exist (an
 * unbuilt pack ships no dist), the LICENSE must be the repository's, README and CHANGELOG ship.
 * @param {string} installedDir the package's folder in the consumer's node_modules
 * @param {Record<string, any>} manifest its package.json
 * @param {string} rootLicense the text of the repository's LICENSE
 */
export async function fileProblems(installedDir, manifest, rootLicense) {
  const problems = [];
  for (const target of manifestTargets(manifest)) {
    if (!existsSync(path.join(installedDir, target))) problems.push(`${target} (named in package.json) is not in the tarball`);
  }
  const license = path.join(installedDir, "LICENSE");
  if (!existsSync(license)) problems.push("LICENSE is not in the tarball");
  else if ((await readFile(license, "utf8")) !== rootLicense) problems.push("LICENSE differs from the repository's LICENSE");
  for (const file of ["README.md", "CHANGELOG.md"]) {
    if (!existsSync(path.join(installedDir, file))) problems.push(`${file} is not in the tarball`);
  }
  for (const dir of ["src", "test"]) {
    if (existsSync(path.join(installedDir, dir))) problems.push(`${dir}/ is in the tarball (only dist ships)`);
  }
  return problems;
}

/** Link targets of a Markdown text: inline links and images, reference definitions, HTML href/src. */
function linkTargets(markdown) {
  // Code is not prose: `a[0](b)` in a code block is no link.
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const patterns = [/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, /^\s*\[[^\]]+\]:\s*<?([^\s>]+)>?/gm, /\s(?:href|src)="([^"]+)"/g];
  return patterns.flatMap((pattern) => [...prose.matchAll(pattern)].map((match) => match[1]));
}

/**
 * Problems with the links of a package README as npm shows it, outside the repository: a relative
 * link leads nowhere there, and a link into this repository must name a file that exists.
 * @param {string} markdown the README text
 * @param {string} repoRoot the workspace root, to check links into the repository
 */
export function readmeLinkProblems(markdown, repoRoot) {
  const problems = [];
  const intoRepo = new RegExp(`^${REPOSITORY_URL.replace(/[.]/g, "\\.")}/(?:blob|tree)/main/([^#?]+)`);
  for (const target of linkTargets(markdown)) {
    if (target.startsWith("#")) continue;
    if (!/^(https?:|mailto:)/.test(target)) {
      problems.push(`README link "${target}" is relative: it breaks on npm; link to ${REPOSITORY_URL}/blob/main/…`);
      continue;
    }
    const repoPath = intoRepo.exec(target)?.[1];
    if (repoPath && !existsSync(path.join(repoRoot, decodeURIComponent(repoPath)))) {
      problems.push(`README link "${target}" names ${repoPath}, which is not in the repository`);
    }
  }
  return problems;
}
