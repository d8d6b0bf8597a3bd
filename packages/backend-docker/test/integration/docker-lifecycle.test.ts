// The container's life: created on first use with codecall's labels, named after itself, removed on
// close; an existing container used and left alone; leftovers of a crashed host cleaned up.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { afterAll, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { cleanupStaleContainers, createEnvironment, DockerEnvironment, MANAGED_LABEL, SESSION_LABEL } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

const docker = new Docker();
/** Containers a test made directly (not through codecall), removed at the end whatever happens. */
const made: Docker.Container[] = [];

async function plainContainer(): Promise<Docker.Container> {
  const container = await docker.createContainer({ Image: TEST_IMAGE, Cmd: ["sleep", "infinity"], Labels: { "codecall.test": "lifecycle" } });
  made.push(container);
  await container.start();
  return container;
}

const inspectStatus = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      (info) => info.State.Status,
      (error: { statusCode?: number }) => error.statusCode,
    );

describeIntegration("docker backend: container lifecycle", dockerUnavailable, () => {
  afterAll(async () => {
    await Promise.all(made.map((container) => container.remove({ force: true }).catch(() => {})));
  });

  it("creates the container on first use, labelled, with its name as hostname, and removes it on close", async () => {
    const environment = new DockerEnvironment({ image: TEST_IMAGE, labels: { "codecall.test": "lifecycle" } });
    expect(environment.containerId).toBeUndefined();
    const before = await docker.listContainers({ all: true, filters: { label: [`${SESSION_LABEL}=${environment.sessionId}`] } });
    expect(before).toEqual([]);

    const hostname = await environment.execute("hostname");
    const id = environment.containerId!;
    const info = await docker.getContainer(id).inspect();
    expect(info.Name).toBe(`/${environment.containerName}`);
    expect(hostname.stdout.trim()).toBe(environment.containerName);
    expect(info.Config.Labels).toMatchObject({
      [MANAGED_LABEL]: "true",
      [SESSION_LABEL]: environment.sessionId,
      "codecall.pid": String(process.pid),
      "codecall.test": "lifecycle",
    });

    await environment.close();
    expect(await inspectStatus(id)).toBe(404);
    await environment.close();
    await expect(environment.start()).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error, "ENVIRONMENT_CLOSED"));
  });

  it("never creates a container when closed before first use", async () => {
    const environment = new DockerEnvironment({ image: TEST_IMAGE });
    await environment.close();
    await expect(environment.execute("true")).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error, "ENVIRONMENT_CLOSED"));
    await expect(environment.start()).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error, "ENVIRONMENT_CLOSED"));
    expect(await docker.listContainers({ all: true, filters: { label: [`${SESSION_LABEL}=${environment.sessionId}`] } })).toEqual([]);
  });

  it("works in an existing container with the given env and workdir, and leaves it running on close", async () => {
    const container = await plainContainer();
    const name = (await container.inspect()).Name.slice(1);
    const environment = await createEnvironment({ container: name, env: { CODECALL_GREETING: "hello" }, workdir: "/tmp" });
    expect(environment.containerName).toBe(name);
    const result = await environment.execute('printf "%s %s" "$CODECALL_GREETING" "$(pwd)"');
    expect(result.stdout).toBe("hello /tmp");
    await environment.close();
    expect(await inspectStatus(container.id)).toBe("running");
    await expect(environment.execute("true")).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error, "ENVIRONMENT_CLOSED"));
  });

  it("refuses an existing container that is stopped or missing, saying which", async () => {
    const container = await plainContainer();
    await container.stop({ t: 0 });
    const name = (await container.inspect()).Name.slice(1);
    await expect(createEnvironment({ container: name })).rejects.toThrow(`Container ${name} is not running (exited)`);
    await expect(createEnvironment({ container: "codecall-no-such-container" })).rejects.toThrow(
      /^No container codecall-no-such-container on the Docker engine/,
    );
  });

  it("keeps the container after close when keepContainer is set", async () => {
    const environment = await createEnvironment({ image: TEST_IMAGE, keepContainer: true });
    const id = environment.containerId!;
    made.push(docker.getContainer(id));
    await environment.close();
    expect(await inspectStatus(id)).toBe("running");
  });

  it("removes what a crashed host left behind, and nothing a live one still uses", async () => {
    const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
    if (!existsSync(dist)) throw new Error(`${dist} is missing: build the package first (pnpm build)`);
    // A host process that creates its container and then dies without close(): kill -9.
    const host = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { createEnvironment } = await import(${JSON.stringify(dist)}); const e = await createEnvironment({ image: ${JSON.stringify(TEST_IMAGE)} }); console.log(e.containerId); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const [line] = (await once(host.stdout!, "data")) as [Buffer];
    const orphan = line.toString().trim();
    host.kill("SIGKILL");
    await once(host, "exit");
    expect(await inspectStatus(orphan)).toBe("running");

    const live = await createEnvironment({ image: TEST_IMAGE });
    try {
      expect((await cleanupStaleContainers({ olderThanMs: 3_600_000 })).map((entry) => entry.id)).not.toContain(orphan);
      const removed = await cleanupStaleContainers();
      expect(removed.map((entry) => entry.id)).toContain(orphan);
      expect(removed.map((entry) => entry.id)).not.toContain(live.containerId);
      expect(await inspectStatus(orphan)).toBe(404);
      expect(await inspectStatus(live.containerId!)).toBe("running");
    } finally {
      await live.close();
    }
  });
});
