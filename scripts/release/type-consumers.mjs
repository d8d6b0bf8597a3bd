// A stranger's TypeScript project for each `moduleResolution` a consumer may use, importing every
// entry point of every package and touching every name it exports at run time: the compile fails
// when TypeScript cannot find an entry's types or its types lack a name the JavaScript exports.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The resolution modes a consumer may compile with, and the module setting each requires. `cjs`:
 * the mode also compiles a CommonJS file (`.cts`, `import x = require(...)`), as TypeScript ≥ 5.8
 * allows for an ES module under `nodenext` (Node ≥ 20.19 can require() one).
 */
export const RESOLUTION_MODES = [
  { moduleResolution: "node10", module: "commonjs" },
  { moduleResolution: "node16", module: "node16" },
  { moduleResolution: "nodenext", module: "nodenext", cjs: true },
  { moduleResolution: "bundler", module: "esnext" },
];

/**
 * A source file that binds each entry point with `bind(specifier, binding)` and reads every name it
 * exports through that binding (bracketed: any name is fine).
 */
function consumerSource(entries, bind) {
  return [
    ...entries.map(([specifier], index) => bind(JSON.stringify(specifier), `entry${index}`)),
    "",
    "export const touched = [",
    ...entries.flatMap(([, names], index) => names.map((name) => `  entry${index}[${JSON.stringify(name)}],`)),
    "];",
    "",
  ].join("\n");
}

/**
 * Writes the consumer of `mode` into `dir` (inside the project whose node_modules hold the
 * packages): a tsconfig and one source file per module kind.
 * @param {string} dir
 * @param {(typeof RESOLUTION_MODES)[number]} mode
 * @param {Record<string, string[]>} exportNames entry point specifier → names it exports at run time
 */
export async function writeTypeConsumer(dir, mode, exportNames) {
  await mkdir(dir, { recursive: true });
  const entries = Object.entries(exportNames);
  const files = ["esm.ts"];
  await writeFile(
    path.join(dir, "esm.ts"),
    consumerSource(entries, (specifier, binding) => `import * as ${binding} from ${specifier};`),
  );
  if (mode.cjs) {
    await writeFile(
      path.join(dir, "cjs.cts"),
      consumerSource(entries, (specifier, binding) => `import ${binding} = require(${specifier});`),
    );
    files.push("cjs.cts");
  }
  const compilerOptions = {
    module: mode.module,
    moduleResolution: mode.moduleResolution,
    target: "es2022",
    strict: true,
    esModuleInterop: true,
    noEmit: true,
    // Our declarations are checked too (see `typeErrors` for the dependencies' own).
    skipLibCheck: false,
    types: ["node"],
  };
  await writeFile(path.join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`);
}

/** Where a TypeScript diagnostic of the consumer or of one of our packages starts: the consumer's files, `node_modules/@codecall/…`, `node_modules/codecall/…`. */
const OURS = /^(?!node_modules\/)|^node_modules\/(@codecall\/|codecall\/)/;

/**
 * Compiles the consumer in `dir` with the project's own TypeScript and resolves with its errors in
 * the consumer's files and in our packages' declarations. Errors inside third-party declarations
 * (a dependency's types that need a setting this consumer lacks) are theirs, not a defect of ours,
 * and are left out: a stranger's `skipLibCheck` hides them as it would hide ours.
 * @param {string} projectDir the project whose node_modules hold typescript and the packages
 * @param {string} dir the consumer, inside `projectDir`
 * @returns {Promise<string[]>} one entry per error, with its continuation lines
 */
export function typeErrors(projectDir, dir) {
  const tsc = path.join(projectDir, "node_modules/typescript/bin/tsc");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, "-p", path.relative(projectDir, dir), "--pretty", "false"], { cwd: projectDir });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      // A diagnostic starts at column 0; its continuation lines are indented.
      const diagnostics = output.split(/\n(?=\S)/).filter((text) => text.trim() !== "");
      const ours = diagnostics.filter((text) => OURS.test(text));
      if (code !== 0 && diagnostics.length === 0) return reject(new Error(`tsc exited with ${code} and printed no diagnostic`));
      resolve(ours);
    });
  });
}
