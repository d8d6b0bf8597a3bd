// The shared Environment suite against the real SDK and the fake Modal server.
import { afterAll } from "vitest";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describeEnvironment({
  name: "modal (fake Modal server)",
  create: () => createEnvironment(),
  capabilities: { hostSockets: false, streamingStdio: true },
});
