// How commands use the daemon's sessions, counted at the fake: one API call per command once a
// session is idle, a session per command running at once, and stdio that is binary-safe both ways
// although the daemon's session log is line-based text — all as session commands (`agent: false`);
// and what the environment agent costs instead: input calls to its one session command.
import { afterAll, expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
const withoutPython = await FakeDaytona.start({ withoutPython: true });
afterAll(() => Promise.all([fake.close(), withoutPython.close()]));

const toolboxCalls = (since: number) =>
  fake.requests
    .slice(since)
    .filter((request) => request.path.includes("/toolbox/"))
    .map(
      (request) =>
        `${request.method} ${request.path
          .replace(/^\/toolbox\/[^/]+/, "")
          .replace(/codecall-\w+-(\d+)/, "S$1")
          .replace(/cmd-[\w-]+/, "C")}`,
    );

describeIntegration("daytona session commands", undefined, () => {
  it("costs one API call per command once a session is idle, and a session per command running at once (agent: false)", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent: false });
    let mark = fake.requests.length;
    for (let index = 0; index < 3; index += 1) expect((await environment.execute(`echo ${index}`)).stdout).toBe(`${index}\n`);
    expect(toolboxCalls(mark)).toEqual([
      "POST /process/session",
      "POST /process/session/S1/exec",
      "POST /process/session/S1/exec",
      "POST /process/session/S1/exec",
    ]);
    mark = fake.requests.length;
    await Promise.all(Array.from({ length: 3 }, () => environment.execute("sleep 0.3")));
    const calls = toolboxCalls(mark);
    expect(calls.filter((call) => call === "POST /process/session")).toHaveLength(2);
    expect(calls.filter((call) => call.endsWith("/exec"))).toHaveLength(3);
  });

  // A command's request needs an input call of its own (its reply comes before anything else is
  // sent); its stdin's end goes after the reply, alone or with the next command's request when its
  // call is still in flight then; commands at once share calls.
  it("through the agent, costs input calls to its one command only: one or two per command (its request, then its stdin's end)", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent: true });
    let mark = fake.requests.length;
    // Starting the agent: a session, its one command, the command's log stream, its source as input.
    await environment.execute("true");
    expect(toolboxCalls(mark).slice(0, 2)).toEqual(["POST /process/session", "POST /process/session/S1/exec"]);
    expect(toolboxCalls(mark)).toContain("WS /process/session/S1/command/C/logs");
    const input = "POST /process/session/S1/command/C/input";
    mark = fake.requests.length;
    for (let index = 0; index < 3; index += 1) expect((await environment.execute("true")).exitCode).toBe(0);
    const alone = toolboxCalls(mark);
    expect(alone.filter((call) => call !== input)).toEqual([]);
    expect(alone.length).toBeGreaterThanOrEqual(3);
    expect(alone.length).toBeLessThanOrEqual(6);
    mark = fake.requests.length;
    await Promise.all(Array.from({ length: 3 }, () => environment.execute("sleep 0.3")));
    const together = toolboxCalls(mark);
    expect(together.filter((call) => call !== input)).toEqual([]);
    expect(together.length).toBeLessThanOrEqual(6);
  });

  it.each([
    ["python3", () => fake],
    ["sh (no python3 in the sandbox)", () => withoutPython],
  ])("carries every byte value both ways through a spawned process, as it is written: %s bridge", async (_bridge, which) => {
    await using environment = await createEnvironment({ ...which().connection, agent: false });
    const child = await environment.spawn("cat; printf 'no newline at the end'");
    const bytes = Uint8Array.from({ length: 1024 }, (_, index) => index % 256);
    const writer = child.stdin.getWriter();
    const reader = child.stdout.getReader();
    await writer.write(bytes);
    const received: number[] = [];
    while (received.length < bytes.length) {
      const { value, done } = await reader.read();
      if (done) break;
      received.push(...value);
    }
    // The echo arrives while stdin is still open: the stream is live, not collected at the end.
    expect(received).toEqual([...bytes]);
    await writer.close();
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    expect(rest).toBe("no newline at the end");
    expect(await child.wait()).toEqual({ exitCode: 0 });
  });

  it("ends a session command with the command's own status, which the daemon reports too (what counts when the bridge's end marks are lost)", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent: false });
    expect((await environment.execute("echo out; exit 3")).exitCode).toBe(3);
    const sandbox = fake.sandboxes.get(await environment.sandboxId())!;
    const daemonCodes = [...sandbox.sessions.values()].flatMap((session) => [...session.commands.values()].map((command) => command.exitCode));
    expect(daemonCodes).toContain(3);
  });

  it.each([
    ["python3", () => fake, true],
    ["sh (no python3 in the sandbox)", () => withoutPython, false],
  ])("runs a spawned command under the %s bridge, and one run to completion under the sh bridge", async (_bridge, which, python) => {
    await using environment = await createEnvironment({ ...which().connection, agent: false });
    // The names of the command's ancestors, up to the fake's session shell and beyond.
    const ancestors = 'p=$$; while [ "$p" -gt 1 ]; do cat /proc/$p/comm; p=$(cut -d" " -f4 /proc/$p/stat); done';
    const child = await environment.spawn(ancestors);
    await child.stdin.close();
    const isPython = (name: string) => name.startsWith("python3");
    expect((await new Response(child.stdout).text()).split("\n").some(isPython)).toBe(python);
    expect((await environment.execute(ancestors)).stdout.split("\n").some(isPython)).toBe(false);
  });
});
