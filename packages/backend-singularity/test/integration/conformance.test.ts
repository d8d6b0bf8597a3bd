// The shared Environment suite, through the fake apptainer CLI (commands really run, as children of
// `apptainer exec`; only the container around them is imaginary).
import { FAKE_IMAGE } from "../fake-cli.js";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";

describeEnvironment({
  name: "singularity",
  create: () => createEnvironment({ image: FAKE_IMAGE }),
  capabilities: { hostSockets: false, streamingStdio: true },
});
