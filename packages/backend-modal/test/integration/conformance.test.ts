// The shared Environment suite against the real SDK and the fake Modal server: through the
// environment agent (the default) and as one `sandbox.exec` per operation (`agent: false`).
import { afterAll } from "vitest";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

for (const agent of [true, false]) {
  describeEnvironment({
    name: `modal (fake Modal server, ${agent ? "through the agent" : "plain execs"})`,
    create: () => createEnvironment({ agent }),
    capabilities: { hostSockets: false, streamingStdio: true },
  });
}
