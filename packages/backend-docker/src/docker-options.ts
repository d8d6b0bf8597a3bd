/**
 * The options of the docker backend. Every option is plain JSON, so the CLI's `-o key=value`
 * pairs and a config file's `backendOptions` reach `createEnvironment()` unchanged.
 */

/** Where the Docker engine listens. Without any of these, `DOCKER_HOST` decides. */
export interface DockerConnectionOptions {
  /**
   * Path of the engine's Unix socket, e.g. `/var/run/docker.sock`.
   * Default: from `DOCKER_HOST`, else `~/.docker/run/docker.sock`, else `/var/run/docker.sock`.
   */
  socketPath?: string;
  /**
   * The engine's address in `DOCKER_HOST` syntax: `unix:///path`, `tcp://host:2375`,
   * `ssh://user@host`. Ignored when `socketPath` is set. Default: `DOCKER_HOST`.
   * TLS for `tcp://` follows `DOCKER_TLS_VERIFY` and `DOCKER_CERT_PATH`, as with the docker CLI.
   */
  host?: string;
  /**
   * How long the engine may take to answer one request — a ping, or creating and starting an exec —
   * before codecall gives up with an error instead of waiting on a hung engine, in ms. Commands may
   * run for as long as they like; this only bounds how long the engine takes to start them. Default 10000.
   */
  engineTimeoutMs?: number;
}

/**
 * Options of {@link createEnvironment}. Give `image` to have codecall create (and later remove)
 * a container, or `container` to work in one that already runs.
 */
export interface DockerEnvironmentOptions extends DockerConnectionOptions {
  /**
   * Image of the container codecall creates, e.g. `python:3.12-slim`. It needs a POSIX `sh` with
   * `base64`, `awk`, `mktemp`, `timeout`, `setsid` (coreutils + util-linux, or busybox) and, for
   * `executeCode`, `python3`. Required unless `container` is given.
   */
  image?: string;
  /**
   * Pull `image` when it is not present locally. Default `false`: codecall never contacts a
   * registry on its own, and a missing image is an error that says how to get it.
   */
  pull?: boolean;
  /**
   * Work in this existing, running container (id or name) instead of creating one. `close()`
   * then leaves it running. The creation options (`image`, `name`, `labels`, limits, `network`,
   * `mounts`, `user`, security settings) do not apply; `env` and `workdir` apply to every command.
   */
  container?: string;
  /** Name (and hostname) of the new container. Default: `codecall-<random id>`. */
  name?: string;
  /** Extra labels on the new container. The `codecall.*` labels codecall sets cannot be overridden. */
  labels?: Record<string, string>;
  /** Default working directory of commands. Default: the image's `WORKDIR` (`/` when it has none). */
  workdir?: string;
  /** Variables every command gets by default (on top of the image's own `ENV`). Default: none. */
  env?: Record<string, string>;
  /** User (`name`, `uid` or `uid:gid`) commands run as. Default: the image's `USER` (often root). */
  user?: string;
  /** Memory limit: bytes, or a string with a unit (`"512m"`, `"2g"`; units of 1024). Default: no limit. */
  memory?: number | string;
  /** CPU limit in CPUs, e.g. `1.5`. Default: no limit. */
  cpus?: number;
  /** Maximum number of processes in the container; `-1` for no limit. Default `512` (stops fork bombs). */
  pidsLimit?: number;
  /** Network mode: `"bridge"`, `"none"` (no network at all), `"host"`, or a network's name. Default: the engine's (`bridge`). */
  network?: string;
  /** Bind mounts and volumes in `docker run -v` syntax: `["/host/dir:/data:ro", "cache:/root/.cache"]`. Default: none. */
  mounts?: string[];
  /** Mount the image's filesystem read-only; `/tmp` becomes a tmpfs unless `tmpfs` says otherwise. Default `false`. */
  readOnly?: boolean;
  /** tmpfs mounts: path → mount options, e.g. `{ "/tmp": "rw,size=256m" }`. Default: none (`/tmp` with `readOnly`). */
  tmpfs?: Record<string, string>;
  /**
   * Capabilities dropped from the container. Default `["ALL"]`: commands run without any Linux
   * capability (python, the shell and codecall's wrapper need none). Root in the container can then
   * not change file ownership, bypass file permissions, bind low ports or use raw sockets.
   */
  capDrop?: string[];
  /**
   * Capabilities given back after `capDrop`, e.g. `["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID"]`
   * for package managers that switch users. Default: none.
   */
  capAdd?: string[];
  /** Leave the created container running after `close()` (for debugging). Default `false`: it is removed. */
  keepContainer?: boolean;
}
