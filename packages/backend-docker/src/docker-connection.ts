/**
 * Connecting to the Docker engine: a dockerode client for the configured address, and a ping
 * with a deadline so that a dead or absent engine is a clear error instead of a hang.
 */
import Docker from "dockerode";
import { CodecallError, errorMessage } from "@codecall/core";
import type { DockerConnectionOptions } from "./docker-options.js";

/** Default `engineTimeoutMs`: far above a healthy engine's milliseconds, well below "hung". */
export const DEFAULT_ENGINE_TIMEOUT_MS = 10_000;

/** A dockerode client for `options` (docker-modem reads `DOCKER_HOST` and the TLS variables itself). */
export function dockerClient(options: DockerConnectionOptions): Docker {
  if (options.socketPath) return new Docker({ socketPath: options.socketPath });
  if (options.host) return new Docker(parseDockerHost(options.host));
  return new Docker();
}

/** A `DOCKER_HOST`-style address as dockerode options. */
export function parseDockerHost(address: string): Docker.DockerOptions {
  const url = new URL(address);
  switch (url.protocol) {
    case "unix:":
    case "npipe:":
      return { socketPath: url.pathname };
    case "tcp:":
    case "http:":
    case "https:": {
      const tls = url.protocol === "https:" || (url.protocol === "tcp:" && process.env.DOCKER_TLS_VERIFY === "1");
      return { host: url.hostname, port: url.port || (tls ? "2376" : "2375"), protocol: tls ? "https" : "http" };
    }
    case "ssh:":
      return { protocol: "ssh", host: url.hostname, port: url.port || "22", ...(url.username ? { username: url.username } : {}) };
    default:
      throw new CodecallError(
        "INVALID_OPTIONS",
        `docker option host: unsupported address ${JSON.stringify(address)} (use unix://, tcp:// or ssh://)`,
      );
  }
}

/** Where the client will connect, for error messages. */
export function describeEngine(options: DockerConnectionOptions): string {
  if (options.socketPath) return options.socketPath;
  return options.host ?? process.env.DOCKER_HOST ?? "the default socket (/var/run/docker.sock)";
}

/** Resolves once the engine answers; rejects with an actionable message when it does not in time. */
export async function pingEngine(docker: Docker, options: DockerConnectionOptions & { engineTimeoutMs: number }): Promise<void> {
  try {
    // dockerode takes an abort signal here; @types/dockerode 4.0.2 does not declare it.
    const pingable = docker as unknown as { ping(options: { abortSignal: AbortSignal }): Promise<unknown> };
    await pingable.ping({ abortSignal: AbortSignal.timeout(options.engineTimeoutMs) });
  } catch (error) {
    const why = engineFailure(error, options.engineTimeoutMs);
    throw new CodecallError(
      "ENVIRONMENT_FAILED",
      `Cannot reach the Docker engine at ${describeEngine(options)} (${why}): is dockerd running? Set DOCKER_HOST, or the socketPath / host option.`,
      { cause: error },
    );
  }
}

/**
 * Why an engine request failed, in words: a request cut off by its `engineTimeoutMs` deadline
 * (dockerode rejects with the signal's TimeoutError or AbortError) says so instead of "aborted".
 */
export function engineFailure(error: unknown, engineTimeoutMs: number): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${engineTimeoutMs} ms`;
  return errorMessage(error);
}
