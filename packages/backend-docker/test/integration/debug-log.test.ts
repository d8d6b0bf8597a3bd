// The backend debug lines of a Docker environment: the engine, the container's creation, start and
// removal, the environment agent, and each command with its exit.
import { describeIntegration } from "@codecall/conformance";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { afterEach, expect, it } from "vitest";
import { DockerEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

describeIntegration("docker backend debug lines", dockerUnavailable, () => {
  afterEach(() => {
    setDebugSink();
    setDebugNamespaces(undefined);
  });

  /** The debug lines of one environment that runs `exit 5` with a secret-looking variable. */
  async function linesOf(agent: boolean): Promise<{ lines: string[]; name: string }> {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const environment = new DockerEnvironment({ image: TEST_IMAGE, labels: { "codecall.test": "debug-log" }, agent });
    try {
      expect((await environment.execute("exit 5", { env: { RUN_TOKEN: "token-value-never-logged" } })).exitCode).toBe(5);
    } finally {
      await environment.close();
    }
    expect(lines.join("\n")).not.toContain("token-value-never-logged");
    return { lines, name: `codecall-${environment.sessionId}` };
  }

  it("show the container's life, the agent's start and each command through it", async () => {
    const { lines, name } = await linesOf(true);
    // The agent starts on first use, which creates the container.
    expect(lines).toEqual([
      expect.stringMatching(/^codecall:backend docker: the engine at \S+ answers$/),
      expect.stringMatching(new RegExp(`^codecall:backend docker: created container ${name} \\([0-9a-f]{12}\\) from ${TEST_IMAGE}$`)),
      `codecall:backend docker: started container ${name}`,
      expect.stringMatching(/^codecall:backend docker agent: up in \d+ ms \(pid \d+, Python 3\.[\d.]+, subreaper\)$/),
      "codecall:backend docker agent command 1: exit 5 [env + RUN_TOKEN]",
      expect.stringMatching(/^codecall:backend docker agent command 1: exited 5 after \d+ ms$/),
      `codecall:backend docker: removed container ${name}`,
    ]);
  });

  it("say when the agent is off, and show each command as its own exec", async () => {
    const { lines, name } = await linesOf(false);
    // The command is logged when asked for: the container is created on first use, after that line.
    expect(lines).toEqual([
      "codecall:backend docker agent: off; plain execs",
      "codecall:backend docker command 1: exit 5 [env + RUN_TOKEN]",
      expect.stringMatching(/^codecall:backend docker: the engine at \S+ answers$/),
      expect.stringMatching(new RegExp(`^codecall:backend docker: created container ${name} \\([0-9a-f]{12}\\) from ${TEST_IMAGE}$`)),
      `codecall:backend docker: started container ${name}`,
      expect.stringMatching(/^codecall:backend docker command 1: exited 5 after \d+ ms$/),
      `codecall:backend docker: removed container ${name}`,
    ]);
  });
});
