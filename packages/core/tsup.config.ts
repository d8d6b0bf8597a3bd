import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// Four entry points share their code through chunks (splitting), so a class such as
// RpcDispatcher exists once whichever entries a program imports.
export default defineConfig(
  packageBuild(
    { index: "src/index.ts", protocol: "src/protocol.ts", "backend-kit": "src/backend-kit.ts", "plugin-kit": "src/plugin-kit.ts" },
    { platform: "neutral", splitting: true },
  ),
);
