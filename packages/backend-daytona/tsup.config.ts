import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

export default defineConfig(packageBuild({ index: "src/index.ts" }));
