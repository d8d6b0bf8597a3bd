// executeCode in a (fake) Modal sandbox over the file transport, the fallback that needs nothing
// but short execs: request and answer files in the sandbox, collected by polling execs.
import { afterAll } from "vitest";
import { describeExecution } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describeExecution({
  name: "modal + file",
  createEnvironment: ({ env }) => createEnvironment({ env }),
  treeHeld: true,
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "file",
  testTimeoutMs: 120_000,
});
