// The stream transport in containers: the script's tool calls cross one hijacked exec connection
// (the environment agent's, or the relay's) instead of polling — the transport "auto" picks here.
import { expect, it } from "vitest";
import { defineTool, executeCode, resolveTransports } from "@codecall/core";
import {
  describeApprovals,
  describeBackpressure,
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
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

// The socket is served by the environment agent (no relay process), or (agent: false) by the
// transport's own relay in a long-lived exec.
for (const agent of [true, false]) {
  const way = agent ? "through the agent" : "its own relay";
  describeTransport({
    name: `stream on docker (${way})`,
    transport: () => createTransport(),
    createEnvironment: () => createEnvironment({ image: TEST_IMAGE, agent }),
    malformedInput: SOCKET_MALFORMED_INPUT,
    unavailableReason: dockerUnavailable,
    testTimeoutMs: 120_000,
  });

  describeBackpressure({
    name: `stream on docker (${way})`,
    transport: () => createTransport(),
    createEnvironment: () => createEnvironment({ image: TEST_IMAGE, agent }),
    unavailableReason: dockerUnavailable,
  });

  describeExecution({
    name: `docker + stream (${way})`,
    createEnvironment: ({ env }) => createEnvironment({ image: TEST_IMAGE, env, agent }),
    treeHeld: agent,
    builtinTools,
    transport: () => createTransport(),
    expectTransportId: "stream",
    unavailableReason: dockerUnavailable,
    testTimeoutMs: 120_000,
  });
}

describeApprovals({
  name: "docker + stream",
  createEnvironment: () => createEnvironment({ image: TEST_IMAGE }),
  transport: () => createTransport(),
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 120_000,
});

describeRunEvents({
  name: "docker + stream",
  createEnvironment: () => createEnvironment({ image: TEST_IMAGE }),
  transport: () => createTransport(),
  expectTransportId: "stream",
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 120_000,
});

describeIntegration("transport auto on docker", dockerUnavailable, () => {
  it("picks the stream transport over the file transport", async () => {
    await using environment = await createEnvironment({ image: TEST_IMAGE });
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

describeIntegration("stream relay under process pressure", dockerUnavailable, () => {
  it("answers 200 forked workers at once in a container limited to 512 processes", async () => {
    // Each worker holds two tasks (itself and its client's reader thread): a relay that needs a
    // thread per connection as well runs out of pids, and a failed thread start used to stop it.
    await using environment = await createEnvironment({ image: TEST_IMAGE, pidsLimit: 512 });
    const code = `
import multiprocessing, os
from codecall import echo
context = multiprocessing.get_context("fork")
everyone = context.Barrier(200)
def work(i):
    first = echo(f"a{i}")["text"]
    everyone.wait()  # all 200 connections are open at once
    second = echo(f"b{i}")["text"]
    os._exit(0 if (first, second) == (f"a{i}", f"b{i}") else 1)
workers = [context.Process(target=work, args=(i,)) for i in range(200)]
for worker in workers: worker.start()
for worker in workers: worker.join()
print(sum(worker.exitcode == 0 for worker in workers))
`;
    const echo = defineTool({
      name: "echo",
      description: "Returns its text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: ({ text }: { text: string }) => ({ text }),
    });
    const result = await executeCode({
      code,
      environment,
      transport: createTransport(),
      tools: [echo],
      limits: { timeoutMs: 90_000, maxToolCalls: 1000 },
    });
    expect(result).toMatchObject({ status: "success", output: "200\n", transport: "stream" });
    expect(result.toolCallsMade).toBe(400);
  }, 180_000);
});

// Sessions: the kernel is spawned through the environment agent, its cells go down its stdin.
describeSessions({
  name: "docker + stream",
  createEnvironment: ({ env }) => createEnvironment({ image: TEST_IMAGE, env }),
  transport: () => createTransport(),
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 120_000,
  concurrentSessions: 8,
});
