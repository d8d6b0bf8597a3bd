// The backend's debug lines against the fake Daytona: the sandbox's life, the environment agent
// (or that it is off), each command and its exit — and never the API key, whatever happens.
import { afterAll, afterEach, expect, it } from "vitest";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const KEY = "dtn_debug_secret_0123456789abcdef";
const fake = await FakeDaytona.start({ apiKey: KEY });
afterAll(() => fake.close());

describeIntegration("daytona backend debug lines", undefined, () => {
  afterEach(() => {
    setDebugSink();
    setDebugNamespaces(undefined);
  });

  it("show the sandbox's life and each command as a session command when the agent is off, and never the API key", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const environment = await createEnvironment({ ...fake.connection, agent: false, labels: { owner: "debug-test" } });
    try {
      expect((await environment.execute("exit 4", { cwd: "/tmp", env: { TOKEN_LIKE: KEY } })).exitCode).toBe(4);
      await environment.writeFile("debug-test.txt", "x");
    } finally {
      await environment.close();
    }
    await createEnvironment({ ...fake.connection, apiKey: `${KEY}-wrong` }).catch(() => {});
    expect(lines.join("\n")).not.toContain(KEY);
    expect(lines).toEqual([
      expect.stringMatching(/^codecall:backend daytona: creating sandbox codecall-\w+ \(snapshot default\)$/),
      expect.stringMatching(/^codecall:backend daytona: sandbox [\w-]+ created in \d+ ms \(@daytonaio\/sdk\)$/),
      "codecall:backend daytona agent: off; plain execs",
      "codecall:backend daytona command 1: exit 4 [cwd /tmp; env + TOKEN_LIKE]",
      expect.stringMatching(/^codecall:backend daytona: session codecall-\w+-1 created$/),
      expect.stringMatching(/^codecall:backend daytona command 1: exited 4 after \d+ ms$/),
      expect.stringMatching(/^codecall:backend daytona: sandbox [\w-]+ deleted$/),
      expect.stringMatching(/^codecall:backend daytona: creating sandbox codecall-\w+ \(snapshot default\)$/),
    ]);
  });

  it("show the agent's start (the default) and each command through it, and never the API key", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const environment = await createEnvironment({ ...fake.connection });
    try {
      expect((await environment.execute("exit 4", { cwd: "/tmp", env: { TOKEN_LIKE: KEY } })).exitCode).toBe(4);
    } finally {
      await environment.close();
    }
    expect(lines.join("\n")).not.toContain(KEY);
    expect(lines.filter((line) => line.includes(" agent"))).toEqual([
      expect.stringMatching(/^codecall:backend daytona agent: up in \d+ ms \(pid \d+, Python 3\.[\d.]+, subreaper\)$/),
      "codecall:backend daytona agent command 1: exit 4 [cwd /tmp; env + TOKEN_LIKE]",
      expect.stringMatching(/^codecall:backend daytona agent command 1: exited 4 after \d+ ms$/),
    ]);
  });
});
