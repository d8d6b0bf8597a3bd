// Shared helpers of the benchmarks: statistics, formatting, and the Python loop that times tool
// calls from inside the script (so the numbers are what a script sees, not what the host sees).
import { readFileSync } from "node:fs";
import { createCodeSession, defineTool, executeCode } from "@codecall/core";
import { builtinTools } from "@codecall/tools";

// The figures measured before the last round of speed work (baseline.json), printed beside the
// current ones; run.mjs says whether this run is pinned.
const mode = process.env.CODECALL_BENCH_MODE ?? "unpinned";
const baseline = JSON.parse(readFileSync(new URL("baseline.json", import.meta.url), "utf8"));

/** median/min/max of numeric samples. */
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

/** One result line: `label  median X  (min Y, max Z, n=N)`, and the baseline's median when it has one. */
export function report(label, samples, unit) {
  const { median, min, max, n } = stats(samples);
  const format = (value) =>
    unit === "µs"
      ? `${Math.round(value)} µs`
      : unit === "ms"
        ? `${value.toFixed(1)} ms`
        : unit === "MiB"
          ? `${value.toFixed(1)} MiB`
          : `${value.toFixed(2)} s`;
  const before = baseline[mode]?.[label];
  const was = before === undefined ? "" : `   [before: ${format(before)}]`;
  console.log(`${label.padEnd(58)} median ${format(median).padStart(9)}   (min ${format(min)}, max ${format(max)}, n=${n})${was}`);
}

/** A tool that does nothing: what is measured is the transport and the dispatcher. */
export const noopTool = defineTool({
  name: "noop",
  description: "Does nothing.",
  parameters: { type: "object", properties: {}, additionalProperties: false },
  execute: () => null,
});

/**
 * Round trips of `calls` sequential no-op tool calls, timed in Python with perf_counter_ns,
 * in microseconds. `tool` and `call` (the Python call expression) time another tool instead;
 * `options` go to executeCode (an `onEvent`, an `onApproval`).
 */
export async function noopRoundTrips(options) {
  return (await noopCallCost(options)).samples;
}

/**
 * {@link noopRoundTrips}, with the CPU time one call costs each side over the timed calls, in µs:
 * the guest's (`time.process_time`) and the host's (`process.cpuUsage`, taken by the tool at the
 * first and the last timed call). On a loaded machine these move less than wall times do.
 */
export async function noopCallCost({ environment, transport, calls = 2000, warmup = 200, tool = noopTool, call = `${tool.name}()`, options = {} }) {
  let served = 0;
  let hostStart;
  let hostUsed;
  const counting = defineTool({
    ...tool,
    execute: (args, context) => {
      served += 1;
      if (served === warmup + 1) hostStart = process.cpuUsage();
      else if (served === warmup + calls) hostUsed = process.cpuUsage(hostStart);
      return tool.execute(args, context);
    },
  });
  const result = await executeCode({
    ...options,
    environment,
    transport,
    tools: [counting],
    limits: { maxToolCalls: calls + warmup, maxStdoutBytes: 4_000_000, timeoutMs: 600_000 },
    code: `
import json, time
from codecall import ${tool.name}
for _ in range(${warmup}):
    ${call}
samples = []
cpu = time.process_time()
for _ in range(${calls}):
    started = time.perf_counter_ns()
    ${call}
    samples.append((time.perf_counter_ns() - started) / 1000)
cpu = time.process_time() - cpu
print(json.dumps({"samples": samples, "cpu": cpu}))
`,
  });
  if (result.status !== "success") throw new Error(`round-trip script failed: ${result.error}\n${result.output}`);
  const { samples, cpu } = JSON.parse(result.output);
  const hostCpuUs = hostUsed === undefined ? NaN : (hostUsed.user + hostUsed.system) / (calls - 1);
  return { samples, guestCpuUs: (cpu * 1e6) / calls, hostCpuUs };
}

/** Runs `fn` `times` times and returns the durations in ms. */
export async function timeRepeated(times, fn) {
  const samples = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    await fn(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * Wall time, in ms, of ten calls made at once from ten Python threads, timed by the script itself
 * (so process start-up is not part of it); one sample per run. Each thread calls the tool `name`
 * (imported from codecall) with `args` (Python source of a tuple's items); `afterRun` sees each
 * run's index, e.g. to count the polls it cost.
 */
async function concurrentCallsWall({ environment, transport, tools, name, args = "", runs = 5, afterRun = () => {} }) {
  const wall = [];
  for (let index = 0; index < runs; index += 1) {
    const result = await executeCode({
      environment,
      transport,
      tools,
      code: `
import threading, time
from codecall import ${name}
threads = [threading.Thread(target=${name}, args=(${args})) for _ in range(10)]
started = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
print(time.perf_counter() - started)
`,
    });
    if (result.status !== "success") throw new Error(result.output);
    wall.push(Number(result.output) * 1000);
    afterRun(index);
  }
  return wall;
}

/** {@link concurrentCallsWall} of ten `terminal("sleep 0.3")` calls: a process start per call. */
export function concurrentSleepWall(options) {
  return concurrentCallsWall({ ...options, tools: builtinTools, name: "terminal", args: '"sleep 0.3",' });
}

/** A host tool that answers after 0.3 s: the mock tool of issue 16's concurrency measure. */
const waitTool = defineTool({
  name: "wait",
  description: "Answers after 0.3 s.",
  parameters: { type: "object", properties: {}, additionalProperties: false },
  execute: () => new Promise((resolve) => setTimeout(() => resolve(null), 300)),
});

/**
 * {@link concurrentCallsWall} of ten calls of a host tool that takes 0.3 s: issue 16's measure
 * (what the calls cost with no process to start; the reference serialises them: 3 s).
 */
export function concurrentToolWall(options) {
  return concurrentCallsWall({ ...options, tools: [waitTool], name: "wait" });
}

/** Whole-run times, in ms, of `executeCode` for a script that only prints. */
export function printRunTimes({ environment, transport, runs = 10 }) {
  return timeRepeated(runs, async () => {
    const result = await executeCode({ environment, transport, code: "print('hi')" });
    if (result.status !== "success") throw new Error(result.output);
  });
}

/**
 * The issue-17 goal rows: each measure taken with plain execs (`agent: false`) and through the
 * environment agent, samples interleaved so load drift hits both alike; prints both medians and
 * the ratio. `measures` are `[label, unit, (environment) => Promise<number[]>]`, each call giving
 * one or more samples.
 */
export async function compareAgentAndPlain({ backend, plain, agent, measures, rounds = 5 }) {
  console.log(`\n${backend}: plain execs (agent: false) vs the environment agent, ${rounds} interleaved rounds, medians`);
  for (const [label, unit, measure] of measures) {
    const before = [];
    const after = [];
    for (let round = 0; round < rounds; round += 1) {
      before.push(...(await measure(plain)));
      after.push(...(await measure(agent)));
    }
    const { median: was } = stats(before);
    const { median: now } = stats(after);
    const format = (value) => (unit === "ms" ? `${value.toFixed(1)} ms` : `${Math.round(value)} ${unit}`);
    console.log(
      `${`${backend}: ${label}`.padEnd(58)} plain ${format(was).padStart(9)}   agent ${format(now).padStart(9)}   ${(was / now).toFixed(1)}× faster`,
    );
  }
}

/** The three measures of the agent's goal table. */
export function agentGoalMeasures(transport) {
  return [
    ["no-op execute('true')", "ms", (environment) => timeRepeated(10, () => environment.execute("true"))],
    ["10 concurrent terminal('sleep 0.3'), wall", "ms", (environment) => concurrentSleepWall({ environment, transport, runs: 1 })],
    ["executeCode(print('hi')), environment up", "ms", (environment) => printRunTimes({ environment, transport, runs: 3 })],
  ];
}

/**
 * The SSH server the integration tests use: CODECALL_SSH_* variables, else the provisioning
 * script's env file (scripts/ci/sshd.sh); undefined when neither names one.
 */
export function sshServerOptions() {
  const vars = {};
  try {
    const text = readFileSync(`${process.env.CODECALL_SSHD_STATE ?? "/tmp/codecall-ci/sshd"}/env`, "utf8");
    for (const [, name, value] of text.matchAll(/^export (CODECALL_SSH_[A-Z_]+)=(.*)$/gm)) vars[name] = value;
  } catch {
    // No provisioned server on this machine; the variables may still name one.
  }
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith("CODECALL_SSH_") && value) vars[name] = value;
  if (!vars.CODECALL_SSH_HOST || !vars.CODECALL_SSH_KEY) return undefined;
  return {
    host: vars.CODECALL_SSH_HOST,
    port: Number(vars.CODECALL_SSH_PORT ?? 22),
    username: vars.CODECALL_SSH_USER,
    privateKeyPath: vars.CODECALL_SSH_KEY,
    knownHostsPath: vars.CODECALL_SSH_KNOWN_HOSTS,
  };
}

/**
 * The session rows of one backend: a cell round trip (`x += 1` in a live session, timed by the
 * host from run() to its result), a no-op tool call round trip as a script sees it, a fresh
 * executeCode of the same cell and the first cell of a new session (its kernel's start); samples
 * of the cells, the fresh runs and the starts interleaved so load drift hits them alike.
 * `interpreter`: the Python command for all three (locally, the real interpreter rather than a shim).
 */
export async function reportSessionRoundTrips({ backend, environment, transport, interpreter, cells = 200, runs = 10 }) {
  const python = interpreter === undefined ? {} : { interpreter };
  const session = createCodeSession({ environment, transport, ...python });
  try {
    await sessionRows({ backend, environment, transport, python, session, cells, runs });
  } finally {
    await session.close();
  }
}

async function sessionRows({ backend, environment, transport, python, session, cells, runs }) {
  const check = (result) => {
    if (result.status !== "success") throw new Error(`${backend}: the cell failed: ${result.output}`);
  };
  check(await session.run("x = 0"));
  for (let index = 0; index < 20; index += 1) check(await session.run("x += 1"));
  const cellTimes = [];
  const fresh = [];
  const starts = [];
  const perRun = Math.ceil(cells / runs);
  for (let round = 0; round < runs; round += 1) {
    cellTimes.push(...(await timeRepeated(perRun, async () => check(await session.run("x += 1")))));
    fresh.push(...(await timeRepeated(1, async () => check(await executeCode({ environment, transport, ...python, code: "x = 0\nx += 1" })))));
    const started = createCodeSession({ environment, transport, ...python });
    try {
      starts.push(...(await timeRepeated(1, async () => check(await started.run("x = 0")))));
    } finally {
      await started.close();
    }
  }
  const noop = await noopRoundTrips({ environment, transport, calls: 200, warmup: 20, options: python });
  report(`${backend}: session cell round trip (x += 1)`, cellTimes, "ms");
  report(
    `${backend}: no-op tool call round trip (in a script)`,
    noop.map((us) => us / 1000),
    "ms",
  );
  report(`${backend}: fresh executeCode of the same cell`, fresh, "ms");
  report(`${backend}: first cell of a new session (kernel start)`, starts, "ms");
}
