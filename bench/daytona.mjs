// Daytona backend against the fake Daytona of the package's tests (packages/backend-daytona/test/
// fake-daytona: a local control API and toolbox daemon whose session commands really run on this
// machine), driven by the real SDK. These are FAKE-SERVER numbers: they show what the backend and
// the SDK cost on top of the daemon's own waits (its 50 ms exit poll for synchronous commands, its
// 20 ms log poll), not what the Daytona cloud costs — there every API call also pays a network
// round trip to the toolbox proxy. At the end, the environment agent against session commands
// (`agent: false`), in the same run, with the API calls each way.
import { startFakeDaytona } from "./fakes.mjs";
import { agentGoalMeasures, compareAgentAndPlain, concurrentSleepWall, noopRoundTrips, printRunTimes, report, timeRepeated } from "./lib.mjs";

const skip = (reason) => {
  console.error(`SKIP: ${reason}`);
  process.exit(1);
};

const [daytona, file, stream] = await Promise.all(
  ["@codecall/backend-daytona", "@codecall/transport-file", "@codecall/transport-stream", "tsx/esm/api"].map((name) =>
    import(name).catch(() => skip(`${name} is not installed for bench/`)),
  ),
);
const fake = await startFakeDaytona();

/** Bytes of output {@link spawnedOutput} reads. */
const OUTPUT_BYTES = 20_000_000;

/** Spawns a command that prints OUTPUT_BYTES and reads all of it. */
async function spawnedOutput(environment) {
  const child = await environment.spawn(`head -c ${OUTPUT_BYTES} /dev/zero`);
  await child.stdin.close();
  const received = (await new Response(child.stdout).arrayBuffer()).byteLength;
  if (received !== OUTPUT_BYTES || (await child.wait()).exitCode !== 0) throw new Error(`got ${received} bytes`);
}

try {
  report(
    "daytona (fake): createEnvironment (create sandbox, SDK client) + close",
    await timeRepeated(10, async () => {
      const environment = await daytona.createEnvironment({ ...fake.connection });
      await environment.close();
    }),
    "ms",
  );

  // Session commands here (`agent: false`); the agent's numbers (the default) follow at the end.
  const environment = await daytona.createEnvironment({ ...fake.connection, agent: false });
  await environment.execute("true");
  report('daytona (fake): no-op execute("true") (one session call)', await timeRepeated(30, () => environment.execute("true")), "ms");
  report(
    'daytona (fake): 10 concurrent executeOneshot("true"), wall time',
    await timeRepeated(5, () => Promise.all(Array.from({ length: 10 }, () => environment.executeOneshot("true")))),
    "ms",
  );
  const calls = fake.requests.length;
  await environment.execute("true");
  console.log(`daytona (fake): API calls per warm execute: ${fake.requests.length - calls}`);

  for (const [name, transport] of [
    ["stream", stream.createTransport()],
    ["file", file.createTransport()],
  ]) {
    const roundTrips = await noopRoundTrips({ environment, transport, calls: 50, warmup: 5 });
    report(
      `daytona (fake)+${name}: no-op tool call round trip (sequential)`,
      roundTrips.map((us) => us / 1000),
      "ms",
    );
    report(
      `daytona (fake)+${name}: 10 concurrent terminal('sleep 0.3') calls, wall time`,
      await concurrentSleepWall({ environment, transport, runs: 3 }),
      "ms",
    );
    report(`daytona (fake)+${name}: executeCode(print('hi')), whole run`, await printRunTimes({ environment, transport, runs: 5 }), "ms");
  }
  // The daemon's 20 ms log poll sets the stream round trip above (a request that arrives just
  // after a poll waits for the next); polled every 1 ms, what is left is the backend's own cost.
  fake.logPollMs = 1;
  const ownCost = await noopRoundTrips({ environment, transport: stream.createTransport(), calls: 100, warmup: 5 });
  report(
    "daytona (fake, log polled every 1 ms)+stream: no-op tool call round trip",
    ownCost.map((us) => us / 1000),
    "ms",
  );
  fake.logPollMs = 20;
  report(
    `daytona (fake): ${OUTPUT_BYTES / 1e6} MB of spawned output through the log`,
    await timeRepeated(3, () => spawnedOutput(environment)).then((times) => times.map((ms) => ms / 1000)),
    "s",
  );
  await environment.close();

  // The environment agent against session commands, in the same run (issue 17's goal table).
  const [plain, agent] = await Promise.all([
    daytona.createEnvironment({ ...fake.connection, agent: false }),
    daytona.createEnvironment({ ...fake.connection, agent: true }),
  ]);
  await compareAgentAndPlain({
    backend: "daytona (fake)",
    plain,
    agent,
    measures: [
      ...agentGoalMeasures(stream.createTransport()),
      [
        "no-op tool call round trip (stream)",
        "ms",
        async (environment) =>
          (await noopRoundTrips({ environment, transport: stream.createTransport(), calls: 20, warmup: 3 })).map((us) => us / 1000),
      ],
      [`${OUTPUT_BYTES / 1e6} MB of spawned output`, "ms", (environment) => timeRepeated(1, () => spawnedOutput(environment))],
    ],
  });
  for (const [name, measured] of [
    ["session commands", plain],
    ["agent", agent],
  ]) {
    const apiCalls = async (work) => {
      const before = fake.requests.length;
      await work();
      return fake.requests.length - before;
    };
    const one = await apiCalls(() => measured.execute("true"));
    const ten = await apiCalls(() => Promise.all(Array.from({ length: 10 }, () => measured.execute("sleep 0.3"))));
    const hi = await apiCalls(() => printRunTimes({ environment: measured, transport: stream.createTransport(), runs: 1 }));
    console.log(
      `daytona (fake), ${name}: API calls per no-op execute ${one}, per 10 concurrent execute("sleep 0.3") ${ten}, per executeCode(print('hi')) ${hi}`,
    );
  }
  await Promise.all([plain.close(), agent.close()]);
} finally {
  await fake.close();
}
