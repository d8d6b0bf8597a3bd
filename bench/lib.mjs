// Shared helpers of the benchmarks: statistics, formatting, and the Python loop that times tool
// calls from inside the script (so the numbers are what a script sees, not what the host sees).
import { defineTool, executeCode } from "@codecall/core";
import { builtinTools } from "@codecall/tools";

/** median/min/max of numeric samples. */
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

/** One result line: `label  median X  (min Y, max Z, n=N)`. */
export function report(label, samples, unit) {
  const { median, min, max, n } = stats(samples);
  const format = (value) => (unit === "µs" ? `${Math.round(value)} µs` : unit === "ms" ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} s`);
  console.log(`${label.padEnd(58)} median ${format(median).padStart(9)}   (min ${format(min)}, max ${format(max)}, n=${n})`);
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
 * in microseconds.
 */
export async function noopRoundTrips({ environment, transport, calls = 2000, warmup = 200 }) {
  const result = await executeCode({
    environment,
    transport,
    tools: [noopTool],
    limits: { maxToolCalls: calls + warmup, maxStdoutBytes: 4_000_000, timeoutMs: 600_000 },
    code: `
import json, time
from codecall import noop
for _ in range(${warmup}):
    noop()
samples = []
for _ in range(${calls}):
    started = time.perf_counter_ns()
    noop()
    samples.append((time.perf_counter_ns() - started) / 1000)
print(json.dumps(samples))
`,
  });
  if (result.status !== "success") throw new Error(`round-trip script failed: ${result.error}\n${result.output}`);
  return JSON.parse(result.output);
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
 * Wall time, in ms, of ten `terminal("sleep 0.3")` calls from ten Python threads, timed by the
 * script itself (so process start-up is not part of it); one sample per run. `afterRun` sees each
 * run's index, e.g. to count the polls it cost.
 */
export async function concurrentSleepWall({ environment, transport, runs = 5, afterRun = () => {} }) {
  const wall = [];
  for (let index = 0; index < runs; index += 1) {
    const result = await executeCode({
      environment,
      transport,
      tools: builtinTools,
      code: `
import threading, time
from codecall import terminal
threads = [threading.Thread(target=terminal, args=("sleep 0.3",)) for _ in range(10)]
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
