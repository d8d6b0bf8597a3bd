#!/usr/bin/env node
// Runs pnpm with the arguments given, on a machine that may only have Node and npm.
// Uses an installed pnpm 10 when there is one, else fetches the pinned version through npx.
import { spawnSync } from "node:child_process";

const PINNED = "pnpm@10.34.9";
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", TURBO_NO_UPDATE_NOTIFIER: "1" };

function installedPnpmIsUsable() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8", env });
  return probe.status === 0 && /^10\./.test(probe.stdout.trim());
}

const args = process.argv.slice(2);
const [command, commandArgs] = installedPnpmIsUsable() ? ["pnpm", args] : ["npx", ["--yes", PINNED, ...args]];
const result = spawnSync(command, commandArgs, { stdio: "inherit", env });
if (result.error) {
  console.error(`could not run ${command}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
