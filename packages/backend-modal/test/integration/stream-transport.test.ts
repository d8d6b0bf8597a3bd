// executeCode in a (fake) Modal sandbox over the stream transport: its relay runs in one
// long-lived `sandbox.exec` whose stdin stays open, and tool calls cross it — what `auto` picks.
import { afterAll, expect, it } from "vitest";
import { executeCode, resolveTransports } from "@codecall/core";
import { describeExecution, describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describeExecution({
  name: "modal + stream",
  createEnvironment: ({ env }) => createEnvironment({ env }),
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "stream",
});

/**
 * Python that prints the sandbox a process runs in: the fake tags each exec'd process with
 * FAKE_MODAL_SANDBOX=<id>; the nearest ancestor carrying the tag names it (the script's own env was cleared).
 */
const SANDBOX_OF_PROCESS = `
pid = "self"
while pid not in ("0", "1"):
    tags = [e for e in open(f"/proc/{pid}/environ", "rb").read().split(b"\\0") if e.startswith(b"FAKE_MODAL_SANDBOX=")]
    if tags:
        print(tags[0].decode().split("=")[1])
        break
    pid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
`;

describeIntegration("transport auto on modal", undefined, () => {
  it("picks the stream transport; the script and its tools run in the sandbox", async () => {
    await using environment = await createEnvironment();
    const transports = await resolveTransports("auto", { importModule: (specifier) => import(specifier) });
    const result = await executeCode({
      code: `
import shlex
from codecall import terminal
source = ${JSON.stringify(SANDBOX_OF_PROCESS)}
exec(source)
print(terminal("python3 -c " + shlex.quote(source))["output"].strip())
`,
      environment,
      transport: transports,
      tools: builtinTools,
    });
    expect(result).toMatchObject({ status: "success", transport: "stream" });
    expect(result.output).toBe(`${environment.sandboxId}\n${environment.sandboxId}\n`);
  });
});
