// What goes wrong with a cloud sandbox, against the fake Daytona and the real SDK: credentials,
// a sandbox that does not start, one deleted under a running script, a log stream that breaks
// off, a missing SDK; and whose sandbox close() deletes.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { CodecallError, executeCode } from "@codecall/core";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createEnvironment, DaytonaEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
afterAll(() => fake.close());

const refuseSdk = (names: string[]) => (specifier: string) =>
  names.includes(specifier)
    ? Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}' imported from here`), { code: "ERR_MODULE_NOT_FOUND" }))
    : import(specifier);

describe("credentials", () => {
  beforeEach(() => {
    delete process.env.DAYTONA_API_KEY;
    delete process.env.DAYTONA_JWT_TOKEN;
  });

  it("without an API key, says how to give one, before any request", async () => {
    const before = fake.requests.length;
    const error = await createEnvironment({ apiUrl: fake.apiUrl, target: "fake" }).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toMatch(/^daytona: no API key: give apiKey .* or set DAYTONA_API_KEY/);
    expect(fake.requests.slice(before).filter((request) => request.method !== "WS")).toEqual([]);
  });

  it("with a wrong API key, reports the API's refusal without the key", async () => {
    const key = "dtn_wrong-key-0123456789";
    const error = await createEnvironment({ ...fake.connection, apiKey: key }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(
      /^daytona: creating the sandbox codecall-\w+ failed: the Daytona API refused the credentials \(401\): Invalid credentials/,
    );
    expect((error as Error).message).not.toContain(key);
    const create = fake.requests.filter((request) => request.method === "POST" && request.path === "/api/sandbox").at(-1);
    expect(create?.authorization).toBe(`Bearer ${key}`);
  });
});

describe("the sandbox's life", () => {
  it("reports a sandbox that fails to start, and deletes it", async () => {
    fake.failNextStart = "no runner has capacity";
    const before = new Set(fake.sandboxes.keys());
    const error = await createEnvironment({ ...fake.connection, image: "python:3.12-slim" }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^daytona: creating the sandbox codecall-\w+ failed: .*no runner has capacity/);
    expect([...fake.sandboxes.keys()].filter((id) => !before.has(id))).toEqual([]);
  });

  it("deletes the sandbox it created on close, once", async () => {
    const environment = await createEnvironment({ ...fake.connection });
    const id = await environment.sandboxId();
    expect(fake.sandboxes.get(id)?.params).toMatchObject({ labels: { codecall: "true" }, autoStopInterval: 15, autoDeleteInterval: 0 });
    await environment.close();
    await environment.close();
    expect(fake.sandboxes.has(id)).toBe(false);
    expect(fake.requestsTo(`/api/sandbox/${id}`).filter((request) => request.method === "DELETE")).toHaveLength(1);
    await expect(environment.execute("true")).rejects.toThrow(/closed/);
  });

  it("attaches to an existing sandbox, starting it, and leaves it running with none of its sessions", async () => {
    const owner = await createEnvironment({ ...fake.connection });
    const id = await owner.sandboxId();
    const sandbox = fake.sandboxes.get(id)!;
    const sessionsBefore = new Set(sandbox.sessions.keys());
    sandbox.state = "stopped";
    const attached = await createEnvironment({ ...fake.connection, sandbox: sandbox.name });
    expect(fake.requestsTo(`/api/sandbox/${id}/start`)).toHaveLength(1);
    expect((await attached.execute("echo attached")).stdout).toBe("attached\n");
    await attached.close();
    expect(fake.sandboxes.get(id)?.state).toBe("started");
    expect([...sandbox.sessions.keys()].filter((session) => !sessionsBefore.has(session))).toEqual([]);
    await owner.close();
    expect(fake.sandboxes.has(id)).toBe(false);
  });

  it("names a sandbox to attach to that does not exist", async () => {
    await expect(createEnvironment({ ...fake.connection, sandbox: "no-such-sandbox" })).rejects.toThrow(
      'daytona: there is no sandbox "no-such-sandbox" (option sandbox)',
    );
  });
});

// Both ways an operation can run: through the environment agent (one long-lived session command)
// and as a session command each. A command that may have run is never run again.
const AGENTS = [true, false];

/** What every operation is refused with once the sandbox `id` is known to be gone. */
const gone = (id: string) => `daytona: the sandbox ${id} was deleted; its commands were lost`;

/** `text` with what a regular expression would read as syntax escaped. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` as a regular expression that matches it exactly. */
const exactly = (text: string) => new RegExp(`^${escape(text)}$`);

/** The bytes a session input call carries to the bridge (`>`-prefixed base64 lines), as text. */
const inputText = (data: string) =>
  Buffer.concat(
    data
      .split("\n")
      .filter((line) => line.startsWith(">") && line !== ">.")
      .map((line) => Buffer.from(line.slice(1), "base64")),
  ).toString("latin1");

/** How a command that failed because of `why` is reported: through the agent it had been handed over, so it may have run. */
const lostCommand = (agent: boolean, why: string) =>
  agent
    ? `The daytona environment lost the command as it started it (${why}); it may have run, so it is not run again`
    : `The daytona environment lost the command: ${why}`;

/** Resolves once `file` exists (a command in the sandbox created it). */
async function untilExists(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe.each(AGENTS)("a sandbox deleted under running work (agent: %s)", (agent) => {
  it.each([
    ["once it printed", "printed"],
    ["2 s after it was started, whether still starting or already sleeping", "started"],
  ])("turns a running script into an error result quickly, not a hang: deleted %s", async (_when, when) => {
    await using environment = await createEnvironment({ ...fake.connection, agent, livenessIntervalMs: 300 });
    const id = await environment.sandboxId();
    let deletedAt: number | undefined;
    const remove = () => {
      if (deletedAt !== undefined) return;
      deletedAt = performance.now();
      fake.deleteSandbox(id);
    };
    const timer = when === "started" ? setTimeout(remove, 2_000) : undefined;
    const result = await executeCode({
      code: "import time\nprint('working', flush=True)\ntime.sleep(120)",
      environment,
      transport: createStreamTransport(),
      tools: [],
      limits: { timeoutMs: 100_000 },
      ...(when === "printed" ? { onStdout: remove } : {}),
    });
    clearTimeout(timer);
    expect(result.status).toBe("error");
    if (when === "printed") expect(result.error).toBe(`daytona environment failed: ${lostCommand(false, gone(id))}`);
    else expect(result.error).toMatch(/the sandbox [\w-]+ was deleted/);
    expect(performance.now() - deletedAt!).toBeLessThan(30_000);
    await expect(environment.execute("true")).rejects.toThrow(exactly(gone(id)));
  });

  it("fails a command in flight and every later one with the reason; the command ran once", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent, livenessIntervalMs: 300 });
    const id = await environment.sandboxId();
    const home = fake.sandboxes.get(id)!.home;
    // The agent (when on) is up before the command, so the command is one of its operations.
    await environment.execute("true");
    const pending = environment.execute('echo ran >> "$HOME/ran"; sleep 120');
    await untilExists(path.join(home, "ran"));
    fake.deleteSandbox(id);
    // Through the agent: lost before or after the agent said it started the command (its reply comes through the log).
    const lost = agent ? [lostCommand(true, gone(id)), lostCommand(false, gone(id))] : [lostCommand(false, gone(id))];
    expect(lost).toContain(await pending.then(String, (error: Error) => error.message));
    await expect(environment.execute("true")).rejects.toThrow(exactly(gone(id)));
    expect(readFileSync(path.join(home, "ran"), "utf8")).toBe("ran\n");
  });

  it("fails the first command when the sandbox is deleted before it: the session it makes is never answered", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent, livenessIntervalMs: 300 });
    const id = await environment.sandboxId();
    fake.deleteSandbox(id);
    // The agent's own command is the one lost (it never started); the command then finds the sandbox known gone.
    await expect(environment.execute("true")).rejects.toThrow(exactly(agent ? gone(id) : lostCommand(false, gone(id))));
  });

  it("fails file transfers whose requests the deleted sandbox leaves hanging, with the reason", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent, livenessIntervalMs: 300 });
    const id = await environment.sandboxId();
    await environment.writeFile("before", "x");
    fake.deleteSandbox(id);
    await expect(environment.writeFile("after", "y")).rejects.toThrow(exactly(gone(id)));
    await expect(environment.readFile("before")).rejects.toThrow(exactly(gone(id)));
  });
});

describe("connections", () => {
  // Through the agent, the stream that drops is the agent's own (the first one opened).
  it.each(AGENTS)("catches up when the log stream drops mid-command: every byte once, in order (agent: %s)", async (agent) => {
    await using environment = await createEnvironment({ ...fake.connection, agent });
    fake.dropNextLogStreamAfter = 2;
    const child = await environment.spawn("i=0; while [ $i -lt 40 ]; do echo line-$i; i=$((i+1)); sleep 0.02; done; exit 5");
    const [output, exit] = await Promise.all([new Response(child.stdout).text(), child.wait()]);
    expect(output).toBe(Array.from({ length: 40 }, (_, index) => `line-${index}\n`).join(""));
    expect(exit.exitCode).toBe(5);
    expect(fake.requestsTo("/logs").filter((request) => request.method === "WS").length).toBeGreaterThan(1);
  });

  it.each(AGENTS)(
    "fails a command whose request drops with the connection's error, never runs it again, and goes on with the next (agent: %s)",
    async (agent) => {
      await using environment = await createEnvironment({ ...fake.connection, agent });
      const home = fake.sandboxes.get(await environment.sandboxId())!.home;
      // The agent (when on) is up first, so the request dropped is the command's, in an input call to the agent.
      await environment.execute("true");
      if (agent) fake.dropInputWhen = (data) => inputText(data).includes("echo late");
      else fake.dropNextSyncCommand = true;
      const outcome = await environment.execute('echo ran >> "$HOME/ran"; sleep 1; echo late').then(JSON.stringify, (error: Error) => error.message);
      const dropped = agent ? "sending a command's input" : "running a command";
      const cut = (handedOver: boolean) =>
        escape(lostCommand(handedOver, `daytona: ${dropped} failed: CUT`)).replace("CUT", ".*(socket hang up|ECONNRESET).*");
      // Through the agent: lost before or after the agent's reply said it started the command.
      expect(outcome).toMatch(new RegExp(agent ? `^(${cut(true)}|${cut(false)})$` : `^${cut(false)}$`));
      expect((await environment.execute("echo next")).stdout).toBe("next\n");
      // The dropped command reached the sandbox (its connection was cut after): it may have run there, but not again.
      const ran = path.join(home, "ran");
      expect(existsSync(ran) ? readFileSync(ran, "utf8") : "").toMatch(/^(ran\n)?$/);
    },
  );

  it("fails a spawned command whose input call drops: bytes it was owed may be lost (agent: false)", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent: false });
    const child = await environment.spawn("cat");
    const writer = child.stdin.getWriter();
    const reader = child.stdout.getReader();
    // Once a line went through, the command runs and the next write is an input call of its own.
    await writer.write(new TextEncoder().encode("through\n"));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("through\n");
    fake.dropInputWhen = () => true;
    await writer.write(new TextEncoder().encode("lost?\n"));
    await expect(child.wait()).rejects.toThrow(
      /^The daytona environment lost the command: daytona: sending a command's input failed: .*(socket hang up|ECONNRESET)/,
    );
  });

  it("names both SDK packages when neither is installed", async () => {
    const environment = new DaytonaEnvironment({ ...fake.connection }, refuseSdk(["@daytonaio/sdk", "@daytona/sdk"]));
    const error = await environment.start().catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "PACKAGE_NOT_INSTALLED")).toBe(true);
    expect((error as Error).message).toBe(
      "The daytona backend needs the Daytona SDK, which is not installed. Install either name of it: npm install @daytonaio/sdk (or npm install @daytona/sdk, the same API under its new name)",
    );
    await environment.close();
  });
});
