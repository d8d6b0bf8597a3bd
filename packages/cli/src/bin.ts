#!/usr/bin/env node
/**
 * The `codecall` command. Start-up is most of a short run's time (`codecall run` of a script that
 * only prints): this entry loads no more than it needs to run the command's build from V8's compile
 * cache (see program-cache.ts), and the build imports only the command asked for (see main.ts).
 * CommonJS, as the build: Node sets up its ES module loader (~5 ms) only when something is imported
 * (a tools module, a plugin), not for every run.
 */
import module from "node:module";
import path from "node:path";
import { runCachedProgram } from "./program-cache.js";

// Node ≥ 22.1 also caches the modules the command imports by name (an MCP server's SDK, the
// TypeScript loader, other backends) in NODE_COMPILE_CACHE or the temp dir.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// The program's imports resolve from here: program.cjs sits beside this file.
runCachedProgram(path.join(__dirname, "program.cjs"), (specifier) => import(specifier)).catch((error: unknown) => {
  process.stderr.write(`codecall: cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
