// The shared Environment suite, against containers on a real Docker engine.
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

describeEnvironment({
  name: "docker",
  create: () => createEnvironment({ image: TEST_IMAGE }),
  capabilities: { hostSockets: false, streamingStdio: true },
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 60_000,
});
