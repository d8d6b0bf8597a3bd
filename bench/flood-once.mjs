// One output flood in a fresh process, for local-uds.mjs: a process that has flooded before keeps
// the memory it grew, so only a first flood shows what the host needs for one. Prints one JSON
// line: wall ms, host CPU ms, host memory growth MiB (peak RSS, sampled every 5 ms, over the RSS
// after a warm-up run).
import { spawn } from "node:child_process";
import { executeCode } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";

const [kind, python] = process.argv.slice(2);
const FLOOD = `
line = "x" * 1023
for _ in range(200 * 1024):
    print(line)
`;
const environment = createEnvironment();
const transport = createTransport();
const plainEnv = { ...process.env };
delete plainEnv.PYTHONUNBUFFERED;

const runs = {
  // Floors: python3 alone, Node draining its pipe and dropping the bytes.
  bare: (env) => async () => {
    const child = spawn(python, ["-c", FLOOD], { stdio: ["ignore", "pipe", "inherit"], env });
    child.stdout.resume();
    await new Promise((resolve) => child.on("close", resolve));
  },
  codecall: (live) => async () => {
    let liveBytes = 0;
    const result = await executeCode({
      environment,
      transport,
      interpreter: python,
      code: FLOOD,
      ...(live ? { onStdout: (chunk) => (liveBytes += chunk.length) } : {}),
    });
    if (result.status !== "success" || !result.stdoutTruncated) throw new Error(`flood failed: ${result.status} ${result.error}`);
    if (live && liveBytes !== 200 * 1024 * 1024) throw new Error(`live output lost bytes: ${liveBytes}`);
  },
};
const run = {
  "floor-buffered": runs.bare(plainEnv),
  "floor-unbuffered": runs.bare({ ...plainEnv, PYTHONUNBUFFERED: "1" }),
  codecall: runs.codecall(false),
  "codecall-live": runs.codecall(true),
}[kind];

// Warm-up: the modules and code paths a run needs, without a flood.
const warm = await executeCode({
  environment,
  transport,
  interpreter: python,
  code: "print('hi')",
  ...(kind === "codecall-live" ? { onStdout: () => {} } : {}),
});
if (warm.status !== "success") throw new Error(warm.output);
const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const cpu = process.cpuUsage();
const started = performance.now();
await run();
const wall = performance.now() - started;
const used = process.cpuUsage(cpu);
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
await environment.close();
console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000, growth: (peak - rssBefore) / 1024 / 1024 }));
