// Shared tsup settings for every package: ESM, declarations, and `?raw` imports so guest-side
// sources (.py, .mjs) live as real files in the package and are embedded at build time.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Options } from "tsup";

/** An esbuild plugin, as tsup takes it (esbuild itself is tsup's dependency, not ours). */
type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

const rawImportPlugin: EsbuildPlugin = {
  name: "codecall-raw-import",
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path.replace(/\?raw$/, "")),
      namespace: "codecall-raw",
    }));
    build.onLoad({ filter: /.*/, namespace: "codecall-raw" }, async (args) => ({
      contents: `export default ${JSON.stringify(await readFile(args.path, "utf8"))};`,
      loader: "js",
    }));
  },
};

/** Build options for a package whose public entry points are `entry`. */
export function packageBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return {
    entry,
    format: ["esm"],
    target: "node20",
    platform: "node",
    dts: true,
    sourcemap: true,
    clean: true,
    splitting: false,
    treeshake: true,
    esbuildPlugins: [rawImportPlugin],
    ...overrides,
  };
}
