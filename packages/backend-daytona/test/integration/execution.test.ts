// executeCode end to end in a (fake) Daytona sandbox, over the stream transport (what auto picks:
// session input and the log stream carry the relay) and the file transport, with built-in tools
// acting in the sandbox.
import { afterAll, expect, it } from "vitest";
import { executeCode, resolveTransports } from "@codecall/core";
import { describeExecution, describeIntegration, describeSessions } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createEnvironment, DaytonaEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
afterAll(() => fake.close());

describeExecution({
  name: "daytona + stream",
  createEnvironment: ({ env }) => createEnvironment({ ...fake.connection, env }),
  treeHeld: true,
  builtinTools,
  transport: () => createStreamTransport(),
  expectTransportId: "stream",
  // 100 MB of output crosses the daemon's log as base64 lines in 1 KiB WebSocket messages.
  testTimeoutMs: 180_000,
});

describeExecution({
  name: "daytona + file",
  createEnvironment: ({ env }) => createEnvironment({ ...fake.connection, env }),
  treeHeld: true,
  builtinTools,
  transport: () => createFileTransport(),
  expectTransportId: "file",
  testTimeoutMs: 180_000,
});

// Sessions: the kernel is a long-lived async session command whose cells go down its input (the
// default), or (agent: true) a process of the environment agent, its cells down the agent's stdin.
for (const agent of [false, true]) {
  describeSessions({
    name: `daytona + stream (${agent ? "through the agent" : "session commands"})`,
    createEnvironment: ({ env }) => createEnvironment({ ...fake.connection, env, agent }),
    transport: () => createStreamTransport(),
    testTimeoutMs: 120_000,
    concurrentSessions: 8,
  });
}

describeIntegration("daytona: transport auto, and either SDK name", undefined, () => {
  it("picks the stream transport; the script and its tools run in the sandbox's session shells", async () => {
    await using environment = await createEnvironment({ ...fake.connection });
    const transports = await resolveTransports("auto", { importModule: (specifier) => import(specifier) });
    const result = await executeCode({
      code: 'import os\nfrom codecall import terminal\nprint(os.environ.get("HOME"), terminal("echo $HOME")["output"].strip())\n',
      environment,
      transport: transports,
      tools: builtinTools,
    });
    const home = fake.sandboxes.get(await environment.sandboxId())!.home;
    expect(result).toMatchObject({ status: "success", output: `${home} ${home}\n`, transport: "stream", toolCallsMade: 1 });
  });

  it("runs with @daytona/sdk (the SDK's new name) when @daytonaio/sdk is not installed", async () => {
    const imported: string[] = [];
    const onlyNewName = (specifier: string) => {
      imported.push(specifier);
      if (specifier === "@daytonaio/sdk")
        return Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" }));
      return import(specifier);
    };
    await using environment = await new DaytonaEnvironment({ ...fake.connection }, onlyNewName).start();
    const result = await executeCode({
      code: "from codecall import echo\nprint(echo('hi'))",
      environment,
      transport: createStreamTransport(),
      tools: [],
    });
    expect(imported).toEqual(["@daytonaio/sdk", "@daytona/sdk"]);
    expect(result.status).toBe("error");
    expect((await environment.execute("echo via-new-name")).stdout).toBe("via-new-name\n");
    const created = fake.requestsTo("/api/sandbox").find((request) => request.method === "POST");
    expect(created).toBeDefined();
  });
});
