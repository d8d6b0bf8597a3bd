import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { parseDockerHost } from "../src/docker-connection.js";
import { createEnvironment, DockerEnvironment } from "../src/index.js";

describe("parseDockerHost", () => {
  it("reads DOCKER_HOST-style addresses", () => {
    expect(parseDockerHost("unix:///run/user/1000/docker.sock")).toEqual({ socketPath: "/run/user/1000/docker.sock" });
    expect(parseDockerHost("tcp://10.0.0.5:2375")).toEqual({ host: "10.0.0.5", port: "2375", protocol: "http" });
    expect(parseDockerHost("ssh://deploy@build-box")).toEqual({ protocol: "ssh", host: "build-box", port: "22", username: "deploy" });
    expect(() => parseDockerHost("ftp://nope")).toThrow(/unsupported address/);
  });
});

describe("an engine that is not there", () => {
  it("fails at once with a message that says what to do", async () => {
    const error = await createEnvironment({ image: "python:3.12", socketPath: "/nonexistent/codecall/docker.sock" }).catch(
      (caught: unknown) => caught,
    );
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toMatch(
      /^Cannot reach the Docker engine at \/nonexistent\/codecall\/docker\.sock \(.*ENOENT.*\): is dockerd running\? Set DOCKER_HOST/,
    );
  });

  it("gives an error result, not a hang, when the first command needs the engine", async () => {
    const environment = new DockerEnvironment({ image: "python:3.12", host: "unix:///nonexistent/codecall/docker.sock" });
    await expect(environment.execute("true")).rejects.toThrow(/Cannot reach the Docker engine at unix:\/\/\/nonexistent/);
    await environment.close();
  });

  it("reports an engine that accepts connections but never answers, after engineTimeoutMs", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-silent-"));
    const socketPath = path.join(dir, "docker.sock");
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    try {
      const error = await createEnvironment({ image: "x", socketPath, engineTimeoutMs: 300 }).catch((caught: unknown) => caught);
      expect((error as Error).message).toBe(
        `Cannot reach the Docker engine at ${socketPath} (no answer within 300 ms): is dockerd running? Set DOCKER_HOST, or the socketPath / host option.`,
      );
    } finally {
      silent.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
