import { readFile, writeFile } from "node:fs/promises";
import { parse, type Node } from "acorn";
import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

/**
 * What the command carries inside its own build rather than importing from node_modules: what every
 * `codecall run` on the local backend loads. Everything else (other backends and transports, the
 * MCP package, tool modules) is imported by name when used, and brings its own copy of core, which
 * codecall's contracts allow (see `CodecallError.isInstance`).
 */
const CARRIED = /^@codecall\/(core|tools|backend-local|transport-uds)(\/|$)/;

/** Optional peers of what is carried: the process's own copy, if it has one (core imports it when a tracer may be registered). */
const PEERS = ["@opentelemetry/api"];

const PROGRAM = "dist/program.cjs";

/** What bin.ts passes program.cjs for `import()`: see makeProgramFunction. */
const IMPORTER = "__codecallImport";

/**
 * Makes the CommonJS build a module that exports one function (see program-cache.ts), whose `import()`s of
 * what it does not carry (tool modules, plugins named in a config, the MCP package) go through the
 * importer bin.ts passes in: Node 20 runs no `import()` of a script compiled from cached data (nor,
 * without a flag, of any `vm` script). Found by parsing, not by text: "import(" in a string stays.
 */
async function makeProgramFunction(): Promise<void> {
  const code = await readFile(PROGRAM, "utf8");
  const starts: number[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    if ((node as Node).type === "ImportExpression") starts.push((node as Node).start);
    for (const value of Object.values(node)) visit(value);
  };
  visit(parse(code, { ecmaVersion: "latest", sourceType: "script", allowHashBang: true }));
  let body = code;
  // From the end, so that each start still points at its `import` when it is replaced.
  for (const start of starts.sort((a, b) => b - a)) {
    if (!body.startsWith("import", start)) throw new Error(`${PROGRAM}: no "import" at ${start}`);
    body = `${body.slice(0, start)}${IMPORTER}${body.slice(start + "import".length)}`;
  }
  // The source map comment goes last, where Node's --enable-source-maps looks for it.
  const mapComment = /^\/\/# sourceMappingURL=.*$/gm;
  const mapUrl = body.match(mapComment)?.[0] ?? "";
  await writeFile(
    PROGRAM,
    `module.exports = function (exports, require, module, __filename, __dirname, ${IMPORTER}) {${body.replace(mapComment, "")}\n};\n${mapUrl}\n`,
  );
}

export default defineConfig([
  // The library entry: one file, as every package ships.
  packageBuild({ index: "src/index.ts" }),
  // The command's entry: the loader of its build, and nothing else.
  packageBuild({ bin: "src/bin.ts" }, { format: ["cjs"], clean: false, dts: false }),
  // The command's build: all its code, and what a local run needs, in one script V8 can cache whole.
  packageBuild(
    { program: "src/cli-process.ts" },
    {
      format: ["cjs"],
      clean: false,
      dts: false,
      shims: true,
      // esbuild's own output, not Rollup's: esbuild keeps each module a dynamic import reaches in a
      // function run on first import (its requires of Node's modules too), Rollup hoists them all.
      treeshake: false,
      noExternal: [CARRIED],
      external: PEERS,
      onSuccess: makeProgramFunction,
    },
  ),
]);
