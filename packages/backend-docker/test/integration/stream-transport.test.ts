// The stream transport in containers: its relay runs in a long-lived exec and the script's tool
// calls cross one hijacked exec connection instead of polling — the transport "auto" picks here.
import { expect, it } from "vitest";
import { executeCode, resolveTransports } from "@codecall/core";
import { describeExecution, describeIntegration, describeTransport, SOCKET_MALFORMED_INPUT } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

describeTransport({
  name: "stream on docker",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment({ image: TEST_IMAGE }),
  malformedInput: SOCKET_MALFORMED_INPUT,
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 120_000,
});

describeExecution({
  name: "docker + stream",
  createEnvironment: ({ env }) => createEnvironment({ image: TEST_IMAGE, env }),
  builtinTools,
  transport: () => createTransport(),
  expectTransportId: "stream",
  unavailableReason: dockerUnavailable,
  testTimeoutMs: 120_000,
});

describeIntegration("transport auto on docker", dockerUnavailable, () => {
  it("picks the stream transport over the file transport", async () => {
    await using environment = await createEnvironment({ image: TEST_IMAGE });
    const transports = await resolveTransports("auto", { importModule: (specifier) => import(specifier) });
    const result = await executeCode({ code: 'from codecall import terminal\nprint(terminal("echo hi")["output"].strip())', environment, transport: transports, tools: builtinTools });
    expect(result).toMatchObject({ status: "success", output: "hi\n", transport: "stream" });
    expect(result.transportsSkipped).toBeUndefined();
  }, 120_000);
});
