// The stream transport over SSH: the script's tool calls cross one long-lived channel (the
// environment agent's, or the relay's) instead of polling — the transport "auto" picks here.
import { expect, it } from "vitest";
import { executeCode, resolveTransports } from "@codecall/core";
import {
  describeApprovals,
  describeExecution,
  describeIntegration,
  describeRunEvents,
  describeSessions,
  describeTransport,
  SOCKET_MALFORMED_INPUT,
} from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

// The socket is served by the environment agent (no relay process), or (environmentAgent: false)
// by the transport's own relay in a long-lived channel.
for (const environmentAgent of [true, false]) {
  const way = environmentAgent ? "through the agent" : "its own relay";
  describeTransport({
    name: `stream on ssh (${way})`,
    transport: () => createTransport(),
    createEnvironment: () => createEnvironment({ ...connectionOptions(), environmentAgent }),
    malformedInput: SOCKET_MALFORMED_INPUT,
    unavailableReason: sshd.unavailableReason,
    testTimeoutMs: 120_000,
  });

  describeExecution({
    name: `ssh + stream (${way})`,
    createEnvironment: ({ env }) => createEnvironment({ ...connectionOptions(), env, environmentAgent }),
    treeHeld: environmentAgent,
    builtinTools,
    transport: () => createTransport(),
    expectTransportId: "stream",
    unavailableReason: sshd.unavailableReason,
    testTimeoutMs: 120_000,
  });
}

describeApprovals({
  name: "ssh + stream",
  createEnvironment: () => createEnvironment(connectionOptions()),
  transport: () => createTransport(),
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 120_000,
});

describeRunEvents({
  name: "ssh + stream",
  createEnvironment: () => createEnvironment(connectionOptions()),
  transport: () => createTransport(),
  expectTransportId: "stream",
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 120_000,
});

describeIntegration("transport auto on ssh", sshd.unavailableReason, () => {
  it("picks the stream transport over the file transport", async () => {
    await using environment = await createEnvironment(connectionOptions());
    const transports = await resolveTransports("auto", { importModule: (specifier) => import(specifier) });
    const result = await executeCode({
      code: 'from codecall import terminal\nprint(terminal("echo hi")["output"].strip())',
      environment,
      transport: transports,
      tools: builtinTools,
    });
    expect(result).toMatchObject({ status: "success", output: "hi\n", transport: "stream" });
    expect(result.transportsSkipped).toBeUndefined();
  }, 120_000);
});

// Sessions: the kernel is spawned through the environment agent, its cells go down its stdin.
describeSessions({
  name: "ssh + stream",
  createEnvironment: ({ env }) => createEnvironment({ ...connectionOptions(), env }),
  transport: () => createTransport(),
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 120_000,
  concurrentSessions: 8,
});
