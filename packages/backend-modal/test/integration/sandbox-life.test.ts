// A sandbox's life against the real SDK and the fake server: what creation sends to Modal, close()
// terminating what it created and nothing it attached to, attaching by id and by name, and the
// errors of attaching to what is not there.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { ModalClient } from "modal";
import { createEnvironment, ModalEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

/** The exit code Modal reports for the sandbox (null while it runs), asked from a second client. */
async function pollFromElsewhere(sandboxId: string): Promise<number | null> {
  const client = new ModalClient();
  const sandbox = await client.sandboxes.fromId(sandboxId);
  try {
    return await sandbox.poll();
  } finally {
    sandbox.detach();
    client.close();
  }
}

/** The definition SandboxCreateV2 carried for `sandboxId`'s creation (the last create before it). */
function lastCreate(): { definition: Record<string, unknown>; tags: unknown; secret_sources: unknown } {
  return fake.calls("SandboxCreateV2").at(-1)!.request as never;
}

/** Processes on this machine (the fake runs commands here) whose command line holds `marker`. */
function processesWith(marker: string): string {
  try {
    return execFileSync("pgrep", ["-f", `[${marker[0]}]${marker.slice(1)}`], { encoding: "utf8" });
  } catch {
    return "";
  }
}

describe("creating a sandbox", () => {
  it("sends lifetime, idle timeout, workdir, resources, placement, network rules, name and tags; env stays out of Modal", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "codecall-modal-workdir-"));
    try {
      await using environment = await createEnvironment({
        appName: "codecall-options",
        name: "options-box",
        lifetimeMs: 120_000,
        idleTimeoutMs: 60_000,
        workdir,
        cpu: 0.5,
        memoryMiB: 512,
        regions: ["us-east-1", "us-west-2"],
        cloud: "aws",
        cidrAllowlist: ["10.0.0.0/8"],
        tags: { team: "agents" },
        env: { CODECALL_OPTION_VALUE: "kept-off-modal-7c1d" },
      });
      const { definition, tags, secret_sources } = lastCreate();
      expect(definition).toMatchObject({
        timeout_secs: 120,
        idle_timeout_secs: 60,
        workdir,
        resources: { milli_cpu: 500, memory_mb: 512 },
        scheduler_placement: { regions: ["us-east-1", "us-west-2"] },
        cloud_provider_str: "aws",
        network_access: { network_access_type: 3, allowed_cidrs: ["10.0.0.0/8"] },
        name: "options-box",
      });
      expect(tags).toEqual(
        expect.arrayContaining([
          { tag_name: "team", tag_value: "agents" },
          { tag_name: "codecall", tag_value: "true" },
        ]),
      );
      expect(secret_sources).toEqual([]);
      expect(JSON.stringify(fake.calls())).not.toContain("kept-off-modal-7c1d");
      const result = await environment.execute('pwd; printf "%s" "$CODECALL_OPTION_VALUE"');
      expect(result.stdout).toBe(`${workdir}\nkept-off-modal-7c1d`);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it("gives the sandbox an hour by default (the SDK's own default is 5 minutes) and blocks the network when asked", async () => {
    await using environment = await createEnvironment({ blockNetwork: true });
    expect(lastCreate().definition).toMatchObject({ timeout_secs: 3600, network_access: { network_access_type: 2 } });
    expect(environment.sandboxId).toMatch(/^sb/);
  });

  it("reports a name a running sandbox of the app already has", async () => {
    await using first = await createEnvironment({ name: "taken-name" });
    const error = await createEnvironment({ name: "taken-name" }).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toBe("modal: could not create a sandbox: A running Sandbox named 'taken-name' already exists in the App");
    expect(first.sandboxId).toBeDefined();
  });
});

describe("commands at once", () => {
  it("runs 20 concurrent commands in one sandbox, each with its own output, exit code and stdin", async () => {
    await using environment = await createEnvironment();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        environment.executeOneshot(`sleep 0.2; cat; echo " $$"; exit ${index % 7}`, { stdin: `input-${index}` }),
      ),
    );
    expect(results.map((result) => result.exitCode)).toEqual(Array.from({ length: 20 }, (_, index) => index % 7));
    expect(results.map((result) => result.stdout.split(" ")[0])).toEqual(Array.from({ length: 20 }, (_, index) => `input-${index}`));
    expect(new Set(results.map((result) => result.stdout.split(" ")[1])).size).toBe(20);
  });
});

describe("close", () => {
  it("terminates the sandbox it created, and everything running in it", async () => {
    const marker = `sleep 302.${Date.now() % 100_000}`;
    // Plain execs: through the agent, a daemon ends with the command that started it.
    const environment = await createEnvironment({ agent: false });
    const id = environment.sandboxId!;
    // Left running in a session of its own (the command waits until it is there, past the group kill at its end).
    await environment.execute(
      `setsid sh -c '${marker}' >/dev/null 2>&1 & until pgrep -f '[${marker[0]}]${marker.slice(1)}' >/dev/null; do sleep 0.05; done`,
    );
    expect(processesWith(marker)).not.toBe("");
    await environment.close();
    expect(await pollFromElsewhere(id)).toBe(137);
    expect(fake.calls("SandboxTerminateV2").map((call) => call.request.sandbox_id)).toContain(id);
    expect(processesWith(marker)).toBe("");
    // Closed is closed: no command starts, and closing again is harmless.
    await expect(environment.execute("true")).rejects.toMatchObject({ code: "ENVIRONMENT_CLOSED" });
    await environment.close();
  });

  it("terminates a sandbox whose creation close() overtook", async () => {
    const creates = fake.calls("SandboxCreateV2").length;
    const environment = new ModalEnvironment();
    const starting = environment.start().then(
      () => "started",
      () => "refused",
    );
    // Called while the creation is in flight: it waits for it, then ends what it made.
    await environment.close();
    await starting;
    expect(fake.calls("SandboxCreateV2").length).toBe(creates + 1);
    expect(await pollFromElsewhere(environment.sandboxId!)).toBe(137);
    await expect(environment.start()).rejects.toMatchObject({ code: "ENVIRONMENT_CLOSED" });
  });
});

describe("attaching", () => {
  it("by id: runs in that sandbox, and close leaves it running", async () => {
    await using owner = await createEnvironment();
    await owner.writeFile("/tmp/codecall-attach-by-id", owner.sandboxId!);
    const terminations = fake.calls("SandboxTerminateV2").length;
    const attached = await createEnvironment({ sandboxId: owner.sandboxId! });
    expect((await attached.execute("cat /tmp/codecall-attach-by-id; echo; echo $FAKE_MODAL_SANDBOX")).stdout).toBe(
      `${owner.sandboxId}\n${owner.sandboxId}\n`,
    );
    await attached.close();
    expect(fake.calls("SandboxTerminateV2").length).toBe(terminations);
    expect(await pollFromElsewhere(owner.sandboxId!)).toBeNull();
    expect((await owner.execute("echo still-here")).stdout).toBe("still-here\n");
  });

  it("by name in the app: runs in that sandbox, and close leaves it running", async () => {
    await using owner = await createEnvironment({ appName: "codecall-named", name: "shared-box" });
    const attached = await createEnvironment({ appName: "codecall-named", sandboxName: "shared-box" });
    expect(attached.sandboxId).toBe(owner.sandboxId);
    expect((await attached.execute("echo $FAKE_MODAL_SANDBOX")).stdout).toBe(`${owner.sandboxId}\n`);
    await attached.close();
    expect(await pollFromElsewhere(owner.sandboxId!)).toBeNull();
  });

  it("reports an id with no sandbox, a sandbox that has ended, and an unknown name", async () => {
    const unknown = await createEnvironment({ sandboxId: "sb2-nosuchsandbox" }).catch((caught: unknown) => caught);
    expect((unknown as Error).message).toBe("modal: there is no sandbox sb2-nosuchsandbox");

    const ended = await createEnvironment();
    const endedId = ended.sandboxId!;
    await ended.close();
    const late = await createEnvironment({ sandboxId: endedId }).catch((caught: unknown) => caught);
    expect((late as Error).message).toBe(`modal: the sandbox ${endedId} has already ended (exit code 137)`);

    const nameless = await createEnvironment({ appName: "codecall-named", sandboxName: "no-such-box" }).catch((caught: unknown) => caught);
    expect((nameless as Error).message).toBe(
      "modal: could not find the sandbox named no-such-box in app codecall-named: Sandbox with name 'no-such-box' not found in App 'codecall-named'",
    );
    for (const error of [unknown, late, nameless]) expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
  });
});
