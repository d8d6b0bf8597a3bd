// Docker backend: container start, a no-op execute next to a bare dockerode exec, and over the file
// and stream transports the tool-call round trip as the script sees it, ten concurrent 0.3 s tool
// calls, and a whole executeCode; then the environment agent against plain execs (`agent: false`). Needs a Docker engine and the test image (scripts/ci/docker.sh, then
// `source /tmp/codecall-ci/docker/env`); without them it says SKIP and exits 1.
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { agentGoalMeasures, compareAgentAndPlain, concurrentSleepWall, noopRoundTrips, printRunTimes, report, timeRepeated } from "./lib.mjs";
import { createEnvironment } from "@codecall/backend-docker";
import Docker from "dockerode";

const image = process.env.CODECALL_DOCKER_IMAGE ?? "codecall-test-python:latest";

let environment;
try {
  environment = await createEnvironment({ image, engineTimeoutMs: 3_000 });
} catch (error) {
  console.error(`SKIP: docker benchmark needs an engine and ${image}: ${error.message}`);
  process.exit(1);
}
await environment.close();

// Start: create + start + the first exec (the tools check), which createEnvironment awaits.
const starts = [];
const closes = [];
for (let index = 0; index < 5; index += 1) {
  let before = performance.now();
  const started = await createEnvironment({ image });
  starts.push(performance.now() - before);
  before = performance.now();
  await started.close();
  closes.push(performance.now() - before);
}
report("docker: container start (create + start + first exec)", starts, "ms");
report("docker: close (docker rm -f)", closes, "ms");

// Plain execs here (as before the agent); the agent's numbers follow at the end, beside these.
environment = await createEnvironment({ image, agent: false });
const container = environment.containerId;
await timeRepeated(5, () => environment.execute("true"));
report("docker: execute('true') (exec through codecall's wrapper)", await timeRepeated(30, () => environment.execute("true")), "ms");
report(
  "docker: execute('true') with timeoutMs (adds the pidfile)",
  await timeRepeated(30, () => environment.execute("true", { timeoutMs: 10_000 })),
  "ms",
);

// Baseline: the engine's own cost of one exec (create, start, stream to its end, inspect).
const bare = new Docker().getContainer(container);
report(
  "baseline: bare dockerode exec of `true` (no wrapper)",
  await timeRepeated(30, async () => {
    const exec = await bare.exec({ Cmd: ["true"], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({});
    bare.modem.demuxStream(stream, new PassThrough().resume(), new PassThrough().resume());
    await finished(stream);
    await exec.inspect();
  }),
  "ms",
);

// The same tool-call work over each transport: polling files, and the relay's long-lived exec.
for (const [name, transport] of [
  ["file", createFileTransport()],
  ["stream", createStreamTransport()],
]) {
  report(`docker+${name}: no-op tool call round trip (sequential)`, await noopRoundTrips({ environment, transport, calls: 100, warmup: 10 }), "µs");
  report(
    `docker+${name}: 10 concurrent terminal('sleep 0.3') calls, wall time`,
    await concurrentSleepWall({ environment, transport, runs: 3 }),
    "ms",
  );
  report(`docker+${name}: executeCode(print) end to end`, await printRunTimes({ environment, transport, runs: 5 }), "ms");
}

await environment.close();

// The environment agent against plain execs, in the same run (issue 17's goal table).
const [plain, agent] = await Promise.all([createEnvironment({ image, agent: false }), createEnvironment({ image })]);
await compareAgentAndPlain({ backend: "docker", plain, agent, measures: agentGoalMeasures(createStreamTransport()) });
await Promise.all([plain.close(), agent.close()]);
