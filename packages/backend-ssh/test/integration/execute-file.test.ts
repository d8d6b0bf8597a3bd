// executeCode end to end over SSH with the file transport: real Python scripts on the SSH host
// calling host tools, whose built-in ones act on that host.
import { afterAll, beforeAll, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { describeExecution, describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createEnvironment, type SshEnvironment } from "../../src/index.js";
import { leftoversCommand } from "./remote-helpers.js";
import { connectionOptions, sshd } from "./sshd.js";

for (const environmentAgent of [true, false]) {
  describeExecution({
    name: `ssh + file (${environmentAgent ? "through the agent" : "plain execs"})`,
    createEnvironment: ({ env }) => createEnvironment({ ...connectionOptions(), env, environmentAgent }),
    treeHeld: environmentAgent,
    builtinTools,
    transport: () => createTransport(),
    unavailableReason: sshd.unavailableReason,
    expectTransportId: "file",
    testTimeoutMs: 120_000,
  });
}

describeIntegration("executeCode over ssh: the host", sshd.unavailableReason, () => {
  let environment: SshEnvironment;

  beforeAll(async () => {
    environment = await createEnvironment(connectionOptions());
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("runs the script and its tools as the SSH user, on the SSH host", async () => {
    const result = await executeCode({
      code: 'import getpass, os\nfrom codecall import terminal\nprint(getpass.getuser(), terminal("id -un")["output"].strip(), os.environ.get("SSH_CONNECTION") is not None)',
      environment,
      transport: createTransport(),
      tools: builtinTools,
    });
    expect(result).toMatchObject({ status: "success", backend: "ssh", transport: "file" });
    expect(result.output).toBe(`${sshd.server!.user} ${sshd.server!.user} False\n`);
  });

  it("leaves no process of a timed-out script on the host, whatever it started", async () => {
    const marker = `sleep 302.${Date.now() % 1_000_000}`;
    const result = await executeCode({
      code: `
import os, subprocess, time
from codecall import terminal
subprocess.Popen("${marker}", shell=True)
subprocess.Popen(["sh", "-c", "(${marker} &) ; ${marker}"])
if os.fork() == 0:
    time.sleep(300)
terminal("echo tool-ran")
print("started", flush=True)
time.sleep(300)
`,
      environment,
      transport: createTransport(),
      tools: builtinTools,
      limits: { timeoutMs: 3_000, killGraceMs: 1_000 },
    });
    expect(result.status).toBe("timeout");
    expect(result.output).toContain("started");
    const leftovers = await environment.executeOneshot(leftoversCommand(marker));
    expect(leftovers.stdout).toBe("");
    expect(leftovers.exitCode).toBe(0);
    const scripts = await environment.executeOneshot(leftoversCommand("time.sleep(300)"));
    expect(scripts.exitCode).toBe(0);
  });
});
