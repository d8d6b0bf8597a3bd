// SSH backend against the OpenSSH server of scripts/ci/sshd.sh: connecting (TCP, handshake, key
// login), a no-op command, 20 concurrent oneshots on one connection, and over the file and stream
// transports the tool-call round trip as the script sees it, ten concurrent 0.3 s tool calls and
// a whole executeCode; then the environment agent against plain execs (`environmentAgent: false`).
import {
  agentGoalMeasures,
  compareAgentAndPlain,
  concurrentSleepWall,
  noopRoundTrips,
  printRunTimes,
  report,
  sshServerOptions,
  timeRepeated,
} from "./lib.mjs";

const skip = (reason) => {
  console.error(`SKIP: ${reason}`);
  process.exit(1);
};

const [ssh, file, stream] = await Promise.all(
  ["@codecall/backend-ssh", "@codecall/transport-file", "@codecall/transport-stream"].map((name) =>
    import(name).catch(() => skip(`${name} is not installed for bench/`)),
  ),
);

const options = sshServerOptions();
if (options === undefined) skip("no SSH server configured (run scripts/ci/sshd.sh)");
const probe = await ssh.createEnvironment(options).catch((error) => skip(`cannot reach the SSH server: ${error.message}`));
await probe.close();

const connects = [];
for (let index = 0; index < 10; index += 1) {
  const started = performance.now();
  const environment = await ssh.createEnvironment(options);
  connects.push(performance.now() - started);
  await environment.close();
}
report("ssh: connect (TCP + handshake + key login + host key check)", connects, "ms");

// Plain execs here (as before the agent); the agent's numbers follow at the end, beside these.
const environment = await ssh.createEnvironment({ ...options, environmentAgent: false });
await environment.execute("true");
report('ssh: no-op execute("true") on the open connection', await timeRepeated(50, () => environment.execute("true")), "ms");
report(
  'ssh: 20 concurrent executeOneshot("true"), wall time',
  await timeRepeated(10, () => Promise.all(Array.from({ length: 20 }, () => environment.executeOneshot("true")))),
  "ms",
);

// The same tool-call work over each transport: polling files, and the relay's long-lived channel.
for (const [name, transport] of [
  ["file", file.createTransport()],
  ["stream", stream.createTransport()],
]) {
  const roundTrips = await noopRoundTrips({ environment, transport, calls: 200, warmup: 20 });
  report(`ssh+${name}: no-op tool call round trip (sequential)`, roundTrips, "µs");
  report(`ssh+${name}: 10 concurrent terminal('sleep 0.3') calls, wall time`, await concurrentSleepWall({ environment, transport, runs: 3 }), "ms");
  report(`ssh+${name}: executeCode(print('hi')), whole run`, await printRunTimes({ environment, transport }), "ms");
}
await environment.close();

// The environment agent against plain execs, in the same run (issue 17's goal table).
const [plain, agent] = await Promise.all([ssh.createEnvironment({ ...options, environmentAgent: false }), ssh.createEnvironment(options)]);
await compareAgentAndPlain({ backend: "ssh", plain, agent, measures: agentGoalMeasures(stream.createTransport()) });
await Promise.all([plain.close(), agent.close()]);
