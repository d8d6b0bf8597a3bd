import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// Runtime-neutral like core: the transport only talks to the Environment contract.
export default defineConfig(packageBuild({ index: "src/index.ts" }, { platform: "neutral" }));
