// Modal backend against the fake Modal server of packages/backend-modal/test (the real `modal` SDK
// over gRPC on 127.0.0.1, commands as local processes): sandbox create + close, a no-op execute,
// 20 concurrent oneshots, and over the stream and file transports the tool-call round trip as the
// script sees it, ten concurrent 0.3 s tool calls and a whole executeCode; then the environment
// agent against plain execs (`agent: false`), in the same run. These are fake-server numbers: they
// measure codecall's and the SDK's overhead, not Modal's network or scheduling.
import { startFakeModal } from "./fakes.mjs";
import { agentGoalMeasures, compareAgentAndPlain, concurrentSleepWall, noopRoundTrips, printRunTimes, report, timeRepeated } from "./lib.mjs";

const skip = (reason) => {
  console.error(`SKIP: ${reason}`);
  process.exit(1);
};

const fake = await startFakeModal().catch((error) => skip(error.message));

const [modal, file, stream] = await Promise.all(
  ["@codecall/backend-modal", "@codecall/transport-file", "@codecall/transport-stream"].map((name) =>
    import(name).catch(() => skip(`${name} is not installed for bench/`)),
  ),
);

try {
  const creates = [];
  const closes = [];
  for (let index = 0; index < 10; index += 1) {
    let started = performance.now();
    const environment = await modal.createEnvironment();
    creates.push(performance.now() - started);
    started = performance.now();
    await environment.close();
    closes.push(performance.now() - started);
  }
  report("modal (fake): sandbox create (app, image, SandboxCreateV2)", creates, "ms");
  report("modal (fake): close (terminate)", closes, "ms");

  // Plain execs here (as before the agent); the agent's numbers follow at the end, beside these.
  const environment = await modal.createEnvironment({ agent: false });
  await environment.execute("true");
  report('modal (fake): no-op execute("true")', await timeRepeated(50, () => environment.execute("true")), "ms");
  report(
    'modal (fake): 20 concurrent executeOneshot("true"), wall time',
    await timeRepeated(10, () => Promise.all(Array.from({ length: 20 }, () => environment.executeOneshot("true")))),
    "ms",
  );

  // The file transport polls with an exec per step: fewer calls, or it would take minutes.
  for (const [name, transport, calls] of [
    ["stream", stream.createTransport(), 200],
    ["file", file.createTransport(), 20],
  ]) {
    const roundTrips = await noopRoundTrips({ environment, transport, calls, warmup: Math.ceil(calls / 10) });
    report(`modal+${name} (fake): no-op tool call round trip (sequential)`, roundTrips, "µs");
    report(`modal+${name} (fake): 10 concurrent terminal('sleep 0.3'), wall`, await concurrentSleepWall({ environment, transport, runs: 3 }), "ms");
    report(`modal+${name} (fake): executeCode(print('hi')), whole run`, await printRunTimes({ environment, transport }), "ms");
  }
  await environment.close();

  // The environment agent against plain execs, in the same run (issue 17's goal table).
  const [plain, agent] = await Promise.all([modal.createEnvironment({ agent: false }), modal.createEnvironment()]);
  await compareAgentAndPlain({ backend: "modal (fake)", plain, agent, measures: agentGoalMeasures(stream.createTransport()) });
  await Promise.all([plain.close(), agent.close()]);
} finally {
  await fake.close();
}
