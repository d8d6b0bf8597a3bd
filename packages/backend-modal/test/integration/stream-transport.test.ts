// executeCode in a (fake) Modal sandbox over the stream transport: its relay runs in one
// long-lived `sandbox.exec` whose stdin stays open, and tool calls cross it — what `auto` picks.
import { afterAll, expect, it } from "vitest";
import { executeCode, resolveEnvironment, resolveTransports } from "@codecall/core";
import { describeExecution, describeIntegration, describeSessions } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment, type ModalEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";
import { WHERE_SCRIPT_AND_TOOL_RUN } from "../sandbox-of-process.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describeExecution({
  name: "modal + stream",
  createEnvironment: ({ env }) => createEnvironment({ env }),
  treeHeld: true,
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "stream",
});

describeIntegration("transport auto on modal", undefined, () => {
  it('resolves backend "modal" by name and picks the stream transport; the script and its tools run in the sandbox', async () => {
    const importModule = (specifier: string) => import(specifier);
    await using environment = (await resolveEnvironment(
      { backend: "modal", options: { image: "python:3.12-slim" } },
      { importModule },
    )) as ModalEnvironment;
    expect(environment.backendId).toBe("modal");
    const transports = await resolveTransports("auto", { importModule });
    const result = await executeCode({
      code: WHERE_SCRIPT_AND_TOOL_RUN,
      environment,
      transport: transports,
      tools: builtinTools,
    });
    expect(result).toMatchObject({ status: "success", transport: "stream" });
    expect(result.output).toBe(`${environment.sandboxId}\n${environment.sandboxId}\n`);
  });
});

// Sessions: the kernel is spawned through the environment agent (the default), or (agent: false)
// as a long-lived `sandbox.exec` of its own; its cells go down that process's stdin.
for (const agent of [true, false]) {
  describeSessions({
    name: `modal + stream (${agent ? "through the agent" : "plain execs"})`,
    createEnvironment: ({ env }) => createEnvironment({ env, agent }),
    transport: () => createTransport(),
    testTimeoutMs: 120_000,
    concurrentSessions: 8,
  });
}
