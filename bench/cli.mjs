// The CLI's start-up: the whole-process time of `codecall run` of a script that only prints, on the
// local backend, next to its floors — a bare `node -e 0` and a bare `python3 -c 'print(1)'`, the
// two processes such a run cannot do without. The three are run in turn, round after round, so a
// load spike on this shared machine hits all of them alike; medians of many rounds.
// CODECALL_BENCH_CLI_COMPARE=/path/to/other/packages/cli/dist/bin.cjs times another build of the
// CLI in the same rounds (e.g. the build before a change), the fair comparison on a loaded machine.
// CODECALL_BENCH_CLI_NODE=/path/to/another/node times the same CLI, and that Node's own floor, under
// another Node (e.g. 22 beside 20: Node's start-up is most of the CLI's floor).
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { report } from "./lib.mjs";

const ROUNDS = 40;
const bin = fileURLToPath(new URL("../packages/cli/dist/bin.cjs", import.meta.url));
// The real interpreter, first on the CLI's PATH too: python3 may be a slow shim (pyenv's costs
// ~30 ms a start), and the floor and the run must start the same program.
const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
const env = { ...process.env, PATH: `${path.dirname(python)}${path.delimiter}${process.env.PATH ?? ""}` };
const dir = await mkdtemp(path.join(tmpdir(), "codecall-bench-cli-"));
const script = path.join(dir, "hi.py");
await writeFile(script, 'print("hi")\n');

/** Wall time, in ms, of one process from spawn to exit; throws unless it printed `expected`. */
function timeProcess(command, args, expected) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: dir, env, encoding: "utf8" });
  const elapsed = performance.now() - started;
  if (result.status !== 0 || result.stdout !== expected) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
  }
  return elapsed;
}

const compare = process.env.CODECALL_BENCH_CLI_COMPARE;
const otherNode = process.env.CODECALL_BENCH_CLI_NODE;
const measures = [
  ["floor: node -e 0", () => timeProcess(process.execPath, ["-e", "0"], "")],
  [`floor: bare python3 -c 'print(1)'`, () => timeProcess(python, ["-c", "print(1)"], "1\n")],
  [`codecall run of print("hi"), local backend, whole process`, () => timeProcess(process.execPath, [bin, "run", script], "hi\n")],
  ...(compare ? [[`  the same, ${compare}`, () => timeProcess(process.execPath, [compare, "run", script], "hi\n")]] : []),
  ...(otherNode
    ? [
        [`  floor: ${otherNode} -e 0`, () => timeProcess(otherNode, ["-e", "0"], "")],
        [`  the same run under ${otherNode}`, () => timeProcess(otherNode, [bin, "run", script], "hi\n")],
      ]
    : []),
];
// Warm the file cache (and a first run's one-off costs) before timing.
for (const [, measure] of measures) measure();
const samples = measures.map(() => []);
const loadBefore = loadavg()[0];
for (let round = 0; round < ROUNDS; round += 1) {
  measures.forEach(([, measure], index) => samples[index].push(measure()));
}
measures.forEach(([label], index) => report(label, samples[index], "ms"));
report(
  "  CLI over its floors (run − node − python, per round)",
  samples[2].map((value, index) => value - samples[0][index] - samples[1][index]),
  "ms",
);
console.log(`load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadavg()[0].toFixed(2)}`);
await rm(dir, { recursive: true, force: true });
