// executeCode end to end in a container: real Python scripts whose tool calls reach the host over
// the file transport (the only transport that needs nothing but exec), with the environment agent
// and without it.
import { describeExecution } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

for (const agent of [true, false]) {
  describeExecution({
    name: `docker + file (${agent ? "through the agent" : "plain execs"})`,
    // The planted secrets go into the container's own env, as a deployment's would.
    createEnvironment: ({ env }) => createEnvironment({ image: TEST_IMAGE, env, agent }),
    treeHeld: agent,
    builtinTools,
    transport: () => createTransport(),
    expectTransportId: "file",
    unavailableReason: dockerUnavailable,
    testTimeoutMs: 120_000,
  });
}
