// The shared Environment suite, through the fake apptainer CLI (commands really run, as children of
// `apptainer exec`; only the container around them is imaginary) — through the environment agent
// (the default) and as one `apptainer exec` per operation (`agent: false`).
import { FAKE_IMAGE } from "../fake-cli.js";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";

for (const agent of [true, false]) {
  describeEnvironment({
    name: `singularity (${agent ? "through the agent" : "plain execs"})`,
    create: () => createEnvironment({ image: FAKE_IMAGE, agent }),
    capabilities: { hostSockets: false, streamingStdio: true },
  });
}
