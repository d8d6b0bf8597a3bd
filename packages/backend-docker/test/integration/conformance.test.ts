// The shared Environment suite, against containers on a real Docker engine: through the environment
// agent (the default) and as one exec per operation (`agent: false`).
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

for (const agent of [true, false]) {
  describeEnvironment({
    name: `docker (${agent ? "through the agent" : "plain execs"})`,
    create: () => createEnvironment({ image: TEST_IMAGE, agent }),
    capabilities: { hostSockets: false, streamingStdio: true },
    unavailableReason: dockerUnavailable,
    testTimeoutMs: 60_000,
  });
}
