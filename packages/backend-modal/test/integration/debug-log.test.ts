// The backend's debug lines against the fake: the sandbox's creation and end, the environment
// agent (or that it is off), each command and its exit, the SDK's own log lines (routed here
// instead of the console) — and never a credential.
import { afterAll, afterEach, expect, it, vi } from "vitest";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FAKE_TOKEN_ID, FAKE_TOKEN_SECRET, FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

/** The start of every JWT the fake issues ({"alg":"none",...} in base64url). */
const JWT_HEADER = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");

describeIntegration("modal backend debug lines", undefined, () => {
  afterEach(() => {
    setDebugSink();
    setDebugNamespaces(undefined);
    vi.restoreAllMocks();
    delete process.env.MODAL_LOGLEVEL;
  });

  it("show the sandbox's life, each command and the SDK's lines at its debug level, never a credential, nothing on the console", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("*");
    const console = [vi.spyOn(globalThis.console, "log"), vi.spyOn(globalThis.console, "warn"), vi.spyOn(globalThis.console, "error")];
    // The right secret only as an option (the host env holds a wrong one): debug lines mask the
    // host env's secret values, so only a value from elsewhere shows whether one leaks.
    process.env.MODAL_TOKEN_SECRET = "as-host-env-SECRET-wrong-1d2c";
    process.env.MODAL_LOGLEVEL = "debug";
    const environment = await createEnvironment({ tokenId: FAKE_TOKEN_ID, tokenSecret: FAKE_TOKEN_SECRET });
    const id = environment.sandboxId!;
    try {
      expect((await environment.execute("exit 4", { cwd: "/tmp" })).exitCode).toBe(4);
    } finally {
      await environment.close();
      process.env.MODAL_TOKEN_SECRET = FAKE_TOKEN_SECRET;
    }
    const ours = lines.filter((line) => !line.includes("modal sdk "));
    expect(ours).toEqual([
      "codecall:backend modal: creating a sandbox in app codecall from python:3.13-slim",
      expect.stringMatching(new RegExp(`^codecall:backend modal: created sandbox ${id} in \\d+ ms$`)),
      expect.stringMatching(/^codecall:backend modal agent: up in \d+ ms \(pid \d+, Python 3\.[\d.]+, subreaper\)$/),
      "codecall:backend modal agent command 1: exit 4 [cwd /tmp]",
      expect.stringMatching(/^codecall:backend modal agent command 1: exited 4 after \d+ ms$/),
      `codecall:backend modal: terminated sandbox ${id}`,
    ]);
    const sdk = lines.filter((line) => line.includes("modal sdk "));
    expect(sdk).toContainEqual(
      expect.stringMatching(/^codecall:backend modal sdk warn: Using insecure TLS \(skip certificate verification\) for task command router$/),
    );
    expect(sdk).toContainEqual(
      expect.stringMatching(/^codecall:backend modal sdk debug: Sending gRPC request method=\/modal\.client\.ModalClient\/SandboxCreateV2$/),
    );
    const all = lines.join("\n");
    for (const secret of [FAKE_TOKEN_SECRET, "as-host-env-SECRET-wrong", JWT_HEADER]) expect(all).not.toContain(secret);
    for (const spy of console) expect(spy).not.toHaveBeenCalled();
  });

  it("say when the agent is off, and show each command as its own exec", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const environment = await createEnvironment({ agent: false });
    try {
      expect((await environment.execute("exit 4")).exitCode).toBe(4);
    } finally {
      await environment.close();
    }
    expect(lines.filter((line) => !line.includes(" modal: ") && !line.includes(" modal sdk "))).toEqual([
      "codecall:backend modal agent: off; plain execs",
      "codecall:backend modal command 1: exit 4",
      expect.stringMatching(/^codecall:backend modal command 1: exited 4 after \d+ ms$/),
    ]);
  });
});
