// The failures issue 12 names, against the real SDK and the fake server: missing and refused
// credentials, an unknown image, an unreachable API, a sandbox terminated or timed out while a
// script runs (an error result soon, not a hang), and a command whose stdin the router refuses.
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CodecallError, executeCode, type Transport } from "@codecall/core";
import { builtinTools } from "@codecall/tools";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { ModalClient } from "modal";
import { createEnvironment, type ModalEnvironment } from "../../src/index.js";
import { FAKE_TOKEN_SECRET, FakeModal, GRPC } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of ["MODAL_SERVER_URL", "MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET"]) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

/** The error `createEnvironment(options)` rejects with (it must reject). */
async function refusal(options: Parameters<typeof createEnvironment>[0] = {}): Promise<CodecallError> {
  const error = await createEnvironment(options).then(
    async (environment) => {
      await environment.close();
      throw new Error("createEnvironment succeeded");
    },
    (caught: unknown) => caught,
  );
  expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
  return error as CodecallError;
}

/** Terminates a sandbox from a second client, as a user or Modal's dashboard would. */
async function terminateFromElsewhere(sandboxId: string): Promise<void> {
  const client = new ModalClient();
  const sandbox = await client.sandboxes.fromId(sandboxId);
  await sandbox.terminate();
  sandbox.detach();
  client.close();
}

describe("credentials", () => {
  it("says where credentials come from when there are none, before calling Modal", async () => {
    delete process.env.MODAL_TOKEN_ID;
    delete process.env.MODAL_TOKEN_SECRET;
    const before = fake.calls().length;
    const error = await refusal();
    expect(error.message).toMatch(
      /^modal: no Modal credentials found\. Give them through MODAL_TOKEN_ID and MODAL_TOKEN_SECRET, the active profile of ~\/\.modal\.toml/,
    );
    expect(error.message).toContain("the tokenId and tokenSecret options");
    expect(fake.calls().length).toBe(before);
  });

  it("reports refused credentials from the environment, without the secret", async () => {
    process.env.MODAL_TOKEN_SECRET = "as-wrong-SECRET-0a1b2c3d4e";
    const error = await refusal();
    expect(error.message).toMatch(
      /^modal: Modal refused the credentials \(Token ID or secret is invalid\..*\)\. Check MODAL_TOKEN_ID and MODAL_TOKEN_SECRET/,
    );
    expect(error.details).toMatchObject({ reason: "credentials-refused" });
    expect(JSON.stringify({ message: error.message, details: error.details, stack: error.stack })).not.toContain("as-wrong-SECRET");
  });

  it("takes tokenId and tokenSecret options over the environment's, and reports them refused without the secret", async () => {
    const error = await refusal({ tokenId: "ak-option", tokenSecret: "as-option-SECRET-5e6f7a8b" });
    expect(error.message).toMatch(/^modal: Modal refused the credentials/);
    expect(error.message).not.toContain("as-option-SECRET");
    const right = await createEnvironment({ tokenId: "ak-fake-codecall-token-id", tokenSecret: FAKE_TOKEN_SECRET });
    process.env.MODAL_TOKEN_SECRET = "as-wrong-SECRET-0a1b2c3d4e";
    try {
      expect((await right.execute("echo in")).stdout).toBe("in\n");
    } finally {
      await right.close();
    }
  });
});

describe("images and the API", () => {
  it("reports a registry tag the registry does not have, naming it and Modal's reason", async () => {
    const error = await refusal({ image: "python:0.0-nonexistent" });
    expect(error.message).toMatch(
      /^modal: could not build the image python:0\.0-nonexistent: Image build for im-\w+ failed with the exception:\nFailed to pull python:0\.0-nonexistent: manifest unknown/,
    );
  });

  it("reports an image id Modal does not know", async () => {
    const error = await refusal({ image: "im-doesnotexist" });
    expect(error.message).toBe("modal: could not find the image im-doesnotexist: Could not find image with ID im-doesnotexist");
    expect(error.details).toMatchObject({ reason: "not-found" });
  });

  it("creates the sandbox from the id of an image Modal has", async () => {
    const built = fake.calls("ImageGetOrCreate").length;
    await using first = await createEnvironment({ image: "python:3.12-slim" });
    expect(fake.calls("ImageGetOrCreate").length).toBe(built + 1);
    const imageId = fake.calls("SandboxCreateV2").at(-1)!.request.definition as { image_id: string };
    await using second = await createEnvironment({ image: imageId.image_id });
    expect(fake.calls("ImageGetOrCreate").length).toBe(built + 1);
    expect((await second.execute("echo from-image-id")).stdout).toBe("from-image-id\n");
    expect(first.sandboxId).not.toBe(second.sandboxId);
  });

  it("reports an API that nothing answers, naming its address, soon", async () => {
    const port = await closedPort();
    process.env.MODAL_SERVER_URL = `http://127.0.0.1:${port}`;
    const started = Date.now();
    const error = await refusal();
    expect(error.message).toMatch(new RegExp(`^modal: cannot reach the Modal API at http://127\\.0\\.0\\.1:${port} to open the app codecall \\(`));
    expect(error.details).toMatchObject({ reason: "unreachable" });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe("a sandbox that ends while a script runs", () => {
  const transports: [string, () => Transport][] = [
    ["stream", () => createStreamTransport()],
    ["file", () => createFileTransport()],
  ];

  /** Runs a long script that prints, then ends the sandbox with `end` once it printed; returns the result and how long it took after the end. */
  async function runUntilEnded(environment: ModalEnvironment, transport: Transport, end: () => Promise<void>) {
    let ended: Promise<number> | undefined;
    const result = await executeCode({
      code: 'import time\nfrom codecall import terminal\nprint(terminal("echo tool-ran")["output"].strip(), flush=True)\ntime.sleep(120)',
      environment,
      transport,
      tools: builtinTools,
      limits: { timeoutMs: 240_000 },
      onStdout: () => {
        ended ??= end().then(() => Date.now());
      },
    });
    const endedAt = await ended!;
    return { result, afterEnd: Date.now() - endedAt };
  }

  it.each(transports)("terminated from elsewhere: an error result soon, over the %s transport, with the output so far", async (_name, transport) => {
    const environment = await createEnvironment();
    try {
      const id = environment.sandboxId!;
      const { result, afterEnd } = await runUntilEnded(environment, transport(), () => terminateFromElsewhere(id));
      expect(result.status).toBe("error");
      expect(result.error).toBe(`modal environment failed: The modal environment lost the command: the Modal sandbox ${id} was terminated`);
      expect(result.output).toBe(`tool-ran\n\n${result.error}`);
      expect(afterEnd).toBeLessThan(30_000);
      // Later commands fail at once with the same reason.
      const later = await environment.execute("true").catch((error: unknown) => error);
      expect((later as Error).message).toBe(`the Modal sandbox ${id} was terminated`);
    } finally {
      await environment.close();
    }
  });

  it("out of lifetime: an error result that says the sandbox timed out", async () => {
    const environment = await createEnvironment({ lifetimeMs: 6_000 });
    try {
      const id = environment.sandboxId!;
      const { result } = await runUntilEnded(environment, createStreamTransport(), async () => {});
      expect(result.status).toBe("error");
      expect(result.error).toBe(
        `modal environment failed: The modal environment lost the command: the Modal sandbox ${id} timed out (its lifetime ran out)`,
      );
      expect(result.durationSeconds).toBeLessThan(60);
    } finally {
      await environment.close();
    }
  });

  it.each([true, false])("terminated while idle: the next command fails soon, naming why (agent: %s)", async (agent) => {
    const environment = await createEnvironment({ agent });
    try {
      await environment.execute("true");
      await terminateFromElsewhere(environment.sandboxId!);
      const started = Date.now();
      const error = await environment.execute("echo never").catch((caught: unknown) => caught);
      expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
      const terminated = `the Modal sandbox ${environment.sandboxId} was terminated`;
      // The agent may have been handed the command before its loss was seen: never run again.
      expect((error as Error).message).toMatch(
        agent
          ? new RegExp(
              `^(The modal environment lost the command as it started it \\(${terminated}\\); it may have run, so it is not run again|${terminated})$`,
            )
          : new RegExp(`^${terminated}$`),
      );
      expect(Date.now() - started).toBeLessThan(30_000);
      // Later commands fail at once with the sandbox's reason.
      await expect(environment.execute("true")).rejects.toThrow(new RegExp(`^${terminated}$`));
    } finally {
      await environment.close();
    }
  });
});

// Plain execs, whose stdin carries each command's header; the agent's own stdin refused is the agent lost.
describe("stdin the router refuses", () => {
  let environment: ModalEnvironment;
  beforeAll(async () => {
    environment = await createEnvironment({ agent: false });
  });
  afterAll(() => environment?.close());
  afterEach(() => fake.fail("TaskExecStdinWrite", GRPC.INVALID_ARGUMENT, { times: 0 }));

  it("fails a command whose header is refused at once (the wrapper would wait for it forever)", async () => {
    await fake.fail("TaskExecStdinWrite", GRPC.INVALID_ARGUMENT, { times: 1000, sandboxId: environment.sandboxId });
    const error = await environment.execute("echo never").catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toMatch(/^modal: could not send the command to the environment: .*INVALID_ARGUMENT: injected by the test/);
  });

  it("ends a command whose input is refused and fails the call, instead of leaving it waiting for input", async () => {
    const marker = `sleep 301.${Date.now() % 100_000}`;
    // A command fed input is killable: its pidfile directory is made once, by an exec of its own.
    expect((await environment.execute("cat", { stdin: "warm" })).stdout).toBe("warm");
    // The header (the command's first write) goes through; the input after it is refused.
    await fake.fail("TaskExecStdinWrite", GRPC.INVALID_ARGUMENT, { times: 1000, after: 1, sandboxId: environment.sandboxId });
    const started = Date.now();
    const error = await environment.execute(`cat; ${marker}`, { stdin: "input the router refuses" }).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toMatch(
      /^Could not write the command's input \(.*INVALID_ARGUMENT: injected by the test\); the command was still waiting after 2 s and was ended$/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    await fake.fail("TaskExecStdinWrite", GRPC.INVALID_ARGUMENT, { times: 0 });
    const left = await environment.execute(`pgrep -f '[c]at; ${marker}' || echo none`);
    expect(left.stdout).toBe("none\n");
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
