import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../src/index.js";

describeEnvironment({ name: "local", create: () => createEnvironment(), capabilities: { hostSockets: true, streamingStdio: true } });
