import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

/**
 * What the command carries inside its own build rather than importing from node_modules: what every
 * `codecall run` on the local backend loads. Node 20 resolves, reads and links each ES module on its
 * own (~0.4 ms a module, more for a package's bare name): from ~20 modules of five packages, a
 * short run's start-up is a fifth shorter in one. Everything else (other backends and transports,
 * the MCP package, tool modules) is imported by name when used, and brings its own copy of core,
 * which codecall's contracts allow (see `CodecallError.isInstance`).
 */
const CARRIED = /^@codecall\/(core|tools|backend-local|transport-uds)(\/|$)/;

/** Optional peers of what is carried: the process's own copy, if it has one (core imports it when a tracer may be registered). */
const PEERS = ["@opentelemetry/api"];

export default defineConfig([
  // The library entry: one file, as every package ships.
  packageBuild({ index: "src/index.ts" }),
  // The command, split: each command's code is a chunk that main.ts imports only when that
  // command runs (one bundle would have Node read and parse all of it on every start-up). Built on
  // its own so that what it shares with the library entry does not split into more files.
  packageBuild({ bin: "src/bin.ts" }, { splitting: true, clean: false, dts: false, noExternal: [CARRIED], external: PEERS }),
]);
