// The shared Environment suite against the real Daytona SDK and the fake Daytona (commands really
// run, in session shells on this machine; only the sandbox around them is imaginary).
import { afterAll } from "vitest";
import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
afterAll(() => fake.close());

describeEnvironment({
  name: "daytona",
  create: () => createEnvironment({ ...fake.connection }),
  capabilities: { hostSockets: false, streamingStdio: true },
});
