// `pnpm bench`: runs every benchmark file (each in its own process) and prints median/min/max.
// On a machine with `taskset`, the local benchmarks run a second time pinned to one CPU: on small
// VMs a cross-CPU wake-up roughly doubles a local round trip, and pinning shows the floor.
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const benches = [
  { file: "local-uds.mjs", pinnable: true },
  { file: "local-file.mjs", pinnable: true },
  { file: "ai-sdk.mjs", pinnable: true },
  { file: "sessions.mjs" },
  { file: "docker.mjs", optional: true },
  { file: "ssh.mjs", optional: true },
  { file: "modal.mjs", optional: true },
  { file: "daytona.mjs", optional: true },
  { file: "apptainer.mjs", optional: true },
];
const only = process.argv.slice(2);
const hasTaskset = spawnSync("taskset", ["--version"]).status === 0;

console.log(`codecall benchmarks — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"})`);
let failed = false;
for (const bench of benches) {
  if (only.length > 0 && !only.some((name) => bench.file.startsWith(name))) continue;
  const path = fileURLToPath(new URL(bench.file, import.meta.url));
  const runs = [{ label: "unpinned", mode: "unpinned", command: process.execPath, args: [path] }];
  if (bench.pinnable && hasTaskset)
    runs.push({ label: "pinned to CPU 0 (taskset -c 0)", mode: "pinned", command: "taskset", args: ["-c", "0", process.execPath, path] });
  for (const run of runs) {
    console.log(`\n## ${bench.file} — ${run.label}`);
    // The mode picks the recorded figures (baseline.json) printed beside each result.
    const env = { ...process.env, CODECALL_BENCH_MODE: run.mode };
    const result = spawnSync(run.command, run.args, { stdio: ["ignore", "inherit", "pipe"], encoding: "utf8", env });
    if (result.status !== 0) {
      const reason = result.stderr.trim().split("\n").slice(-3).join("\n");
      if (bench.optional && /SKIP:/.test(result.stderr)) console.log(reason.replace(/^.*SKIP:/m, "skipped:"));
      else {
        failed = true;
        console.log(`failed:\n${reason}`);
      }
    }
  }
}
process.exitCode = failed ? 1 : 0;
