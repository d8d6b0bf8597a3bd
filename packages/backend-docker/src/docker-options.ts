/**
 * The options of the docker backend, declared once: `createEnvironment()`, config files and the
 * CLI's `-o` pairs are all parsed by this declaration, and `codecall run --backend docker --help`
 * prints it. Every option is plain JSON.
 */
import { defineOptions, type OptionsInput } from "@codecall/core/backend-kit";
import { DEFAULT_ENGINE_TIMEOUT_MS } from "./docker-connection.js";
import { memoryBytes, memoryProblem } from "./memory-size.js";

/** Default `pidsLimit`: generous for thread pools and subprocesses, fatal to fork bombs. */
export const DEFAULT_PIDS_LIMIT = 512;

/** The docker backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("docker", {
  /**
   * The image needs a POSIX `sh` with `base64`, `awk`, `mktemp`, `timeout`, `setsid` (coreutils +
   * util-linux, or busybox) and, for `executeCode`, `python3`.
   */
  image: { type: "string", description: "image to create the container from; required unless `container`" },
  /** Default off: codecall never contacts a registry on its own, and a missing image is an error that says how to get it. */
  pull: { type: "boolean", default: false, description: "pull `image` when it is not present; without it codecall never contacts a registry" },
  /** The creation options (`image`, `name`, `labels`, limits, `network`, `mounts`, `user`, security settings) do not apply to it; `env` and `workdir` apply to every command. */
  container: { type: "string", description: "work in this running container (id or name) instead; `close()` leaves it running" },
  name: { type: "string", defaultText: "`codecall-<random>`", description: "name of the new container, also its hostname" },
  labels: { type: "map", defaultText: "none", description: "extra labels; the `codecall.*` labels cannot be overridden" },
  workdir: { type: "string", defaultText: "the image's `WORKDIR`", description: "default working directory of commands" },
  env: { type: "env", defaultText: "none", description: "variables every command gets by default, on top of the image's `ENV`" },
  user: { type: "string", defaultText: "the image's `USER`", description: "`name`, `uid` or `uid:gid`" },
  memory: {
    type: "string",
    defaultText: "no limit",
    description: 'bytes or `"512m"`, `"2g"` (units of 1024); swap is not added on top',
    check: (memory) => (memoryBytes(memory) === undefined ? memoryProblem(memory) : undefined),
  },
  cpus: {
    type: "number",
    defaultText: "no limit",
    description: "e.g. `1.5`",
    check: (cpus) => (cpus > 0 ? undefined : "must be a positive number of CPUs, e.g. 1.5"),
  },
  pidsLimit: {
    type: "integer",
    default: DEFAULT_PIDS_LIMIT,
    description: "processes in the container; `-1` for no limit",
    check: (limit) => (limit === -1 || limit > 0 ? undefined : "must be a positive number of processes, or -1 for no limit"),
  },
  network: { type: "string", defaultText: "the engine's (`bridge`)", description: '`"none"` cuts the network; `"host"`, or a network name' },
  mounts: {
    type: "list",
    defaultText: "none",
    description: '`docker run -v` syntax: `["/srv/data:/data:ro", "cache:/root/.cache"]`',
    check: (mounts) => {
      const bad = mounts.find((mount) => !/^[^:]+:\/[^:]*(:[A-Za-z,]+)?$/.test(mount));
      return bad === undefined ? undefined : `wants "source:/container/path[:options]", got ${JSON.stringify(bad)}`;
    },
  },
  readOnly: { type: "boolean", default: false, description: "read-only root filesystem; `/tmp` becomes a tmpfs" },
  tmpfs: { type: "map", defaultText: "none", description: '`{ "/tmp": "rw,size=256m" }`; replaces the `/tmp` that `readOnly` adds' },
  /**
   * Commands run without any Linux capability by default (python, the shell and codecall's wrapper
   * need none): root in the container cannot change file ownership, bypass file permissions, bind
   * low ports or use raw sockets.
   */
  capDrop: { type: "list", default: ["ALL"], description: "capabilities dropped" },
  capAdd: {
    type: "list",
    default: [],
    description: 'capabilities given back, e.g. `["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID"]` for package managers',
  },
  keepContainer: { type: "boolean", default: false, description: "leave the created container running after `close()` (debugging)" },
  /** Needs python3 in the image; without it (or after the agent died twice) commands run as plain execs. */
  agent: {
    type: "boolean",
    default: true,
    description: "run commands, files and the stream relay through one long-lived helper in the container (one exec in all); `false`: an exec each",
  },
  socketPath: { type: "string", defaultText: "from `DOCKER_HOST`", description: "the engine's Unix socket" },
  /** TLS for `tcp://` follows `DOCKER_TLS_VERIFY` and `DOCKER_CERT_PATH`, as with the docker CLI; ignored when `socketPath` is set. */
  host: {
    type: "string",
    defaultText: "`DOCKER_HOST`",
    description: "`unix:///path`, `tcp://host:2375` (TLS per `DOCKER_TLS_VERIFY`/`DOCKER_CERT_PATH`), `ssh://user@host`",
  },
  engineTimeoutMs: {
    type: "integer",
    min: 1,
    default: DEFAULT_ENGINE_TIMEOUT_MS,
    description:
      "how long the engine may take to answer one request (ping, create, start, inspect, remove, starting an exec); commands themselves may run as long as they like, and image pulls are not bounded",
  },
});

/**
 * Options of {@link createEnvironment}. Give `image` to have codecall create (and later remove) a
 * container, or `container` to work in one that already runs. `memory` may also be a number of bytes.
 */
export type DockerEnvironmentOptions = Omit<OptionsInput<typeof environmentOptions.specs>, "memory"> & { memory?: number | string };

/** Where the Docker engine listens. Without any of these, `DOCKER_HOST` decides. */
export type DockerConnectionOptions = Pick<DockerEnvironmentOptions, "socketPath" | "host" | "engineTimeoutMs">;
