#!/usr/bin/env node
// The `prepack` of every package: builds the package being packed (the current directory) and
// the workspace packages it needs, through turbo, so packing an unbuilt checkout still ships dist.
// Turbo runs each build with pnpm, so pnpm must be on PATH: it is when pnpm runs this script
// (`pnpm pack`, `pnpm publish`, `changeset publish`), and then turbo is called directly; under
// `npm pack` scripts/pnpm.mjs finds an installed pnpm or fetches the pinned one.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const turboArgs = ["run", "build", "--output-logs=errors-only"];
const runByPnpm = /^pnpm\/10\./.test(process.env.npm_config_user_agent ?? "");
const [command, args] = runByPnpm
  ? [fileURLToPath(new URL("../node_modules/.bin/turbo", import.meta.url)), turboArgs]
  : [process.execPath, [fileURLToPath(new URL("./pnpm.mjs", import.meta.url)), "exec", "turbo", ...turboArgs]];
const result = spawnSync(command, args, { stdio: "inherit" });
if (result.error) {
  console.error(`prepack: could not run ${command}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
