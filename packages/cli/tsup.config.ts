import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

export default defineConfig([
  // The library entry: one file, as every package ships.
  packageBuild({ index: "src/index.ts" }),
  // The command, split: each command's code is a chunk that main.ts imports only when that
  // command runs (one bundle would have Node read and parse all of it on every start-up). Built on
  // its own so that what it shares with the library entry does not split into more files.
  packageBuild({ bin: "src/bin.ts" }, { splitting: true, clean: false, dts: false }),
]);
