// Docker backend (+ file transport): container start, a no-op execute next to a bare dockerode
// exec, the tool-call round trip as the script sees it, ten concurrent 0.3 s tool calls, and a
// whole executeCode. Needs a Docker engine and the test image (scripts/ci/docker.sh, then
// `source /tmp/codecall-ci/docker/env`); without them it says SKIP and exits 1.
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { executeCode } from "@codecall/core";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { noopRoundTrips, report, timeRepeated } from "./lib.mjs";
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

environment = await createEnvironment({ image });
const container = environment.containerId;
await timeRepeated(5, () => environment.execute("true"));
report("docker: execute('true') (exec through codecall's wrapper)", await timeRepeated(30, () => environment.execute("true")), "ms");
report("docker: execute('true') with timeoutMs (adds the pidfile)", await timeRepeated(30, () => environment.execute("true", { timeoutMs: 10_000 })), "ms");

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

const transport = createTransport();
report("docker+file: no-op tool call round trip (sequential)", await noopRoundTrips({ environment, transport, calls: 100, warmup: 10 }), "µs");

const wall = [];
for (let index = 0; index < 3; index += 1) {
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
}
report("docker+file: 10 concurrent terminal('sleep 0.3') calls, wall time", wall, "ms");

report(
  "docker+file: executeCode(print) end to end",
  await timeRepeated(5, async () => {
    const result = await executeCode({ environment, transport, code: "print('hi')" });
    if (result.status !== "success") throw new Error(result.output);
  }),
  "ms",
);

await environment.close();
