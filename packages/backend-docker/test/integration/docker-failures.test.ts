// What goes wrong with containers, and how it is reported: a container killed or removed while a
// command or a script runs, a missing image, an image without sh, a container without the tools.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import Docker from "dockerode";
import { afterAll, expect, it } from "vitest";
import { executeCode, type EnvironmentProcess } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createEnvironment, type DockerEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";
import { startFreezingProxy } from "./freezing-proxy.js";

// The engine timeout of environments behind the freezing proxy: long enough that a loaded engine
// answers the calls before the freeze in time (1 s failed under CI load), short enough that the
// frozen call is given up on quickly.
const ENGINE_TIMEOUT_MS = 5_000;

const docker = new Docker();
const cleanups: (() => Promise<unknown>)[] = [];

/** Reads a process's stdout until `marker` has appeared. */
async function waitForOutput(process: EnvironmentProcess, marker: string): Promise<void> {
  const reader = process.stdout.getReader();
  let seen = "";
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stdout ended before ${marker}: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
}

async function environment(): Promise<DockerEnvironment> {
  const created = await createEnvironment({ image: TEST_IMAGE });
  cleanups.push(() => created.close());
  return created;
}

describeIntegration("docker backend: failures", dockerUnavailable, () => {
  afterAll(async () => {
    await Promise.all(cleanups.map((cleanup) => cleanup().catch(() => {})));
  });

  it("rejects a running command with the reason when the container is killed from outside", async () => {
    const env = await environment();
    const running = await env.spawn("echo started; sleep 300");
    await waitForOutput(running, "started");
    await docker.getContainer(env.containerId!).kill();
    await expect(running.wait()).rejects.toThrow(
      new RegExp(
        `^The docker environment lost the command: container ${env.containerName} stopped \\(exit code 137\\): it was stopped or killed outside codecall$`,
      ),
    );
    await expect(env.execute("true")).rejects.toThrow(/stopped \(exit code 137\)/);
    await env.close();
  });

  const strikes = [
    ["killed", (container: Docker.Container) => container.kill()],
    ["removed", (container: Docker.Container) => container.remove({ force: true })],
  ] as const;
  it.each([
    ...strikes.map(([how, strike]) => [how, "file", strike, createTransport] as const),
    ...strikes.map(([how, strike]) => [how, "stream", strike, createStreamTransport] as const),
  ])(
    "ends a script with a clear error result, not a hang, when its container is %s mid-run (%s transport)",
    async (_how, _transport, strike, transport) => {
      const env = await environment();
      let struck: Promise<unknown> | undefined;
      const result = await executeCode({
        environment: env,
        transport: transport(),
        tools: builtinTools,
        code: 'import time\nprint("started", flush=True)\ntime.sleep(300)',
        onStdout: () => void (struck ??= strike(docker.getContainer(env.containerId!))),
      });
      await struck;
      expect(result.status).toBe("error");
      // A removal is seen either done or half-way (the container stopped on its way out).
      expect(result.error).toMatch(
        new RegExp(
          `^docker environment failed: The docker environment lost the command: container ${env.containerName} ` +
            "(was removed \\(outside codecall\\) while in use|stopped \\(exit code 137\\): it was stopped or killed outside codecall)$",
        ),
      );
      // What the script printed before its container went is kept, with the reason after it.
      expect(result.output).toBe(`started\n\n${result.error}`);
      await env.close();
    },
  );

  it.each([
    // The kill cannot start, so once the in-environment timeout must have ended the command, the
    // host drops it rather than wait for the engine any longer.
    [false, "the connection to the command was closed before it ended"],
    // The kill request gets no answer over the frozen stream: the agent is given up as lost.
    [true, "the agent did not answer a kill within 15 s"],
  ] as const)("ends a timed-out script with an error result, not a hang, when the engine hangs (agent: %s)", async (agent, why) => {
    const proxy = await startFreezingProxy(new URL(process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").pathname);
    cleanups.push(() => proxy.close());
    const env = await createEnvironment({ image: TEST_IMAGE, socketPath: proxy.socketPath, engineTimeoutMs: ENGINE_TIMEOUT_MS, agent });
    // Its own engine connection goes through the frozen proxy: remove the container directly.
    cleanups.push(() => docker.getContainer(env.containerId!).remove({ force: true }));
    const result = await executeCode({
      environment: env,
      transport: createTransport(),
      tools: builtinTools,
      code: 'import time\nprint("started", flush=True)\ntime.sleep(300)',
      limits: { timeoutMs: 2_000 },
      onStdout: () => proxy.freeze(),
    });
    expect(result.status).toBe("error");
    expect(result.error).toBe(`docker environment failed: The docker environment lost the command: ${why}`);
    expect(result.output).toBe(`started\n\n${result.error}`);
  });

  it("gives a clear error, not a hang, when the engine stops answering while it creates the container", async () => {
    const proxy = await startFreezingProxy(new URL(process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").pathname);
    cleanups.push(() => proxy.close());
    // The ping passes; the create request never reaches the engine, so nothing is left behind.
    proxy.freezeOnRequest(/^POST \S*\/containers\/create/);
    const label = `codecall-freeze-${process.pid}`;
    await expect(
      createEnvironment({ image: TEST_IMAGE, socketPath: proxy.socketPath, engineTimeoutMs: ENGINE_TIMEOUT_MS, labels: { [label]: "1" } }),
    ).rejects.toThrow(`Docker could not create a container from ${TEST_IMAGE}: no answer within ${ENGINE_TIMEOUT_MS} ms`);
    expect(await docker.listContainers({ all: true, filters: { label: [label] } })).toEqual([]);
  });

  it("gives a clear error, not a hang, when the engine stops answering at close()", async () => {
    const proxy = await startFreezingProxy(new URL(process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").pathname);
    cleanups.push(() => proxy.close());
    const env = await createEnvironment({ image: TEST_IMAGE, socketPath: proxy.socketPath, engineTimeoutMs: ENGINE_TIMEOUT_MS });
    cleanups.push(() => docker.getContainer(env.containerId!).remove({ force: true }));
    expect((await env.execute("echo alive")).stdout).toBe("alive\n");
    proxy.freeze();
    await expect(env.close()).rejects.toThrow(
      new RegExp(
        `^Could not remove container ${env.containerName}: no answer within ${ENGINE_TIMEOUT_MS} ms\\. Remove it with \`docker rm -f ${env.containerName}\``,
      ),
    );
  });

  it("says an image is missing and that codecall does not pull it unless asked", async () => {
    await expect(createEnvironment({ image: "codecall-no-such-image:never" })).rejects.toThrow(
      /^Docker image codecall-no-such-image:never is not present on the engine at .*, and codecall never pulls unless asked: run `docker pull codecall-no-such-image:never` \(or build it\), or set the pull option/,
    );
  });

  it("tries to pull a missing image only when asked, and reports why the pull failed", async () => {
    // No registry has this image (and CI reaches none): the pull fails either way, with the engine's reason.
    await expect(createEnvironment({ image: "codecall-no-such-image:never", pull: true })).rejects.toThrow(
      /^Could not pull Docker image codecall-no-such-image:never: \S/,
    );
  });

  /** An image whose only file is a text file: nothing can run in it. */
  async function importImageWithoutSh(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-nosh-"));
    await writeFile(path.join(dir, "README"), "no shell here\n");
    const tarball = path.join(dir, "rootfs.tar");
    execFileSync("tar", ["-C", dir, "-cf", tarball, "README"]);
    const image = "codecall-test-nosh:latest";
    const progress = await docker.importImage(tarball, { repo: "codecall-test-nosh", tag: "latest" });
    await new Promise((resolve, reject) =>
      docker.modem.followProgress(progress, (error: Error | null) => (error ? reject(error) : resolve(undefined))),
    );
    cleanups.push(() => docker.getImage(image).remove({ force: true }));
    await rm(dir, { recursive: true, force: true });
    return image;
  }

  it("says an image has no sh", async () => {
    const image = await importImageWithoutSh();
    await expect(createEnvironment({ image })).rejects.toThrow(`Image ${image} has no POSIX shell (sh)`);
    const leftovers = await docker.listContainers({ all: true, filters: { ancestor: [image] } });
    expect(leftovers).toEqual([]);
  });

  it("says an image has no sh, though the engine still calls the stopped container running when the first probe fails", async () => {
    // Seen in CI: the exec was refused ("cannot exec in a stopped state") before inspect showed the exit.
    const image = await importImageWithoutSh();
    const proxy = await startFreezingProxy(new URL(process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").pathname);
    cleanups.push(() => proxy.close());
    proxy.rewriteAnswers(/^GET \S*\/containers\/[^/\s]+\/json/, (answer) => answer.replace('"Running":false', '"Running":true '), 2);
    await expect(createEnvironment({ image, socketPath: proxy.socketPath })).rejects.toThrow(`Image ${image} has no POSIX shell (sh)`);
    const leftovers = await docker.listContainers({ all: true, filters: { ancestor: [image] } });
    expect(leftovers).toEqual([]);
  });

  it("lists the tools a container lacks", async () => {
    const container = await docker.createContainer({ Image: TEST_IMAGE, Cmd: ["sleep", "infinity"] });
    cleanups.push(() => container.remove({ force: true }));
    await container.start();
    const exec = await container.exec({ Cmd: ["rm", "/usr/bin/setsid", "/usr/bin/timeout"] });
    const removal = await exec.start({});
    await finished(removal.resume());
    await expect(createEnvironment({ container: container.id })).rejects.toThrow(
      / lacks setsid, timeout: codecall's command wrapper needs sh with base64, awk, mktemp, setsid, timeout/,
    );
  });
});
