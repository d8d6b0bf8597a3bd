// The shared Environment suite against the real Daytona SDK and the fake Daytona (commands really
// run, in session shells on this machine; only the sandbox around them is imaginary), in a sandbox
// with python3 (spawned commands use the python3 bridge), through the environment agent (the
// default, `agent: true`) and as one session command per operation (`agent: false`), and in one
// without python3 (the sh bridge only; no agent either).
import { afterAll } from "vitest";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
const withoutPython = await FakeDaytona.start({ withoutPython: true });
afterAll(() => Promise.all([fake.close(), withoutPython.close()]));

for (const agent of [true, false]) {
  describeEnvironment({
    name: `daytona (${agent ? "through the agent" : "session commands"})`,
    create: () => createEnvironment({ ...fake.connection, agent }),
    capabilities: { hostSockets: false, streamingStdio: true },
  });
}

describeEnvironment({
  name: "daytona, sh bridge (no python3 in the sandbox)",
  create: () => createEnvironment({ ...withoutPython.connection }),
  capabilities: { hostSockets: false, streamingStdio: true },
});
