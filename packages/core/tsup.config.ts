import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// Four entry points share their code through chunks (splitting), so a class such as
// RpcDispatcher exists once whichever entries a program imports.
// @cfworker/json-schema is bundled into them: it ships as nine ES modules, and Node loads each
// module of a program at a cost of its own (≈1 ms on Node 20: resolve, read, compile), which a
// short `codecall run` pays at start-up for ≈10 ms; bundled it is read and compiled with the chunk
// that uses it. Its MIT license is in THIRD-PARTY-NOTICES.md, which the package ships.
export default defineConfig(
  packageBuild(
    { index: "src/index.ts", protocol: "src/protocol.ts", "backend-kit": "src/backend-kit.ts", "plugin-kit": "src/plugin-kit.ts" },
    { platform: "neutral", splitting: true, noExternal: ["@cfworker/json-schema"] },
  ),
);
