// executeCode end to end in an instance, over the stream transport (what auto picks) and the file
// transport, with built-in tools acting in the instance.
import { FAKE_IMAGE } from "../fake-cli.js";
import { expect, it } from "vitest";
import { executeCode, resolveTransports } from "@codecall/core";
import { describeExecution, describeIntegration, describeSessions, describeTransport, SOCKET_MALFORMED_INPUT } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createEnvironment } from "../../src/index.js";

// The stream transport's socket is served by the environment agent, or (agent: false) by its own relay.
for (const agent of [true, false]) {
  const way = agent ? "through the agent" : "plain execs";
  describeExecution({
    name: `singularity + stream (${way})`,
    createEnvironment: ({ env }) => createEnvironment({ image: FAKE_IMAGE, env, agent }),
    treeHeld: agent,
    builtinTools,
    transport: () => createStreamTransport(),
    expectTransportId: "stream",
  });

  describeTransport({
    name: `stream on singularity (${way})`,
    transport: () => createStreamTransport(),
    createEnvironment: () => createEnvironment({ image: FAKE_IMAGE, agent }),
    malformedInput: SOCKET_MALFORMED_INPUT,
  });
}

describeExecution({
  name: "singularity + file",
  createEnvironment: ({ env }) => createEnvironment({ image: FAKE_IMAGE, env }),
  treeHeld: true,
  builtinTools,
  transport: () => createFileTransport(),
  expectTransportId: "file",
});

/** Shell that prints the `instance://NAME` of the `apptainer exec` its process descends from ([/] keeps the pattern from matching its own command line). */
const INSTANCE_OF_CALLER =
  "p=$$; while [ \"$p\" -gt 1 ]; do tr '\\0' ' ' < /proc/$p/cmdline | grep -o 'instance:/[/][^ ]*' && break; p=$(cut -d' ' -f4 /proc/$p/stat); done";

describeIntegration("transport auto on singularity", undefined, () => {
  it("picks the stream transport, and the script and its tools run in the instance", async () => {
    await using environment = await createEnvironment({ image: FAKE_IMAGE });
    const transports = await resolveTransports("auto", { importModule: (specifier) => import(specifier) });
    const result = await executeCode({
      code: `
import subprocess
from codecall import terminal
print(subprocess.run(["sh", "-c", ${JSON.stringify(INSTANCE_OF_CALLER)}], capture_output=True, text=True).stdout.strip())
print(terminal(${JSON.stringify(INSTANCE_OF_CALLER)})["output"].strip())
`,
      environment,
      transport: transports,
      tools: builtinTools,
    });
    const target = `instance://${environment.instanceName}`;
    expect(result).toMatchObject({ status: "success", output: `${target}\n${target}\n`, transport: "stream" });
  });
});

// Sessions in the instance: the kernel is spawned through the environment agent.
describeSessions({
  name: "singularity + stream",
  createEnvironment: ({ env }) => createEnvironment({ image: FAKE_IMAGE, env }),
  transport: () => createStreamTransport(),
  concurrentSessions: 8,
});
