/**
 * The container an environment works in, through its whole life: created (or found) on first
 * use, checked for the tools codecall's command wrapper needs, asked about its fate when a
 * command is lost, and removed on close unless it was not ours.
 */
import type Docker from "dockerode";
import { CodecallError, errorMessage } from "@codecall/core";
import { debugLogger, delay, newRunId } from "@codecall/core/backend-kit";
import { containerConfig } from "./container-config.js";
import { describeEngine, engineFailure, pingEngine } from "./docker-connection.js";
import { probeExec } from "./exec-probe.js";
import type { ExecTarget } from "./docker-exec.js";
import type { ParsedDockerOptions } from "./parse-options.js";

/** Tools core's command wrapper runs inside the container, besides `sh` itself. */
const REQUIRED_TOOLS = ["base64", "awk", "mktemp", "setsid", "timeout", "cat", "env"];
const MISSING_TOOLS_PROBE = `for t in ${REQUIRED_TOOLS.join(" ")}; do command -v "$t" >/dev/null 2>&1 || printf '%s ' "$t"; done`;

/** How long a dying container may still be reported as running before we call it gone anyway. */
const STATE_SETTLE_MS = 2_000;

const log = debugLogger("backend");

export class ContainerSession implements ExecTarget {
  /** Random id of this environment: in the default container name and the session label. */
  readonly sessionId = newRunId();
  readonly execDefaults: { Env?: string[]; WorkingDir?: string };
  readonly #docker: Docker;
  readonly #options: ParsedDockerOptions;
  #name: string;
  #container: Docker.Container | undefined;
  #ready: Promise<Docker.Container> | undefined;

  constructor(docker: Docker, options: ParsedDockerOptions) {
    this.#docker = docker;
    this.#options = options;
    this.#name = options.container ?? options.name ?? `codecall-${this.sessionId}`;
    // A container we create gets env and workdir in its config; one we only use gets them per exec.
    this.execDefaults =
      options.container === undefined
        ? {}
        : {
            ...(options.env ? { Env: Object.entries(options.env).map(([key, value]) => `${key}=${value}`) } : {}),
            ...(options.workdir ? { WorkingDir: options.workdir } : {}),
          };
  }

  /** How long the engine may take to start an exec (the `engineTimeoutMs` option). */
  get engineTimeoutMs(): number {
    return this.#options.engineTimeoutMs;
  }

  /** The container's name (without the leading slash Docker adds). */
  get name(): string {
    return this.#name;
  }

  /** The container, once {@link ready} has resolved. */
  get container(): Docker.Container {
    if (!this.#container) throw new CodecallError("ENVIRONMENT_FAILED", "docker: the container is not ready yet");
    return this.#container;
  }

  /** The container's id, once {@link ready} has resolved. */
  get containerId(): string | undefined {
    return this.#container?.id;
  }

  /** True when codecall created the container (and so removes it on close). */
  get owned(): boolean {
    return this.#options.container === undefined;
  }

  /** Creates or finds the container, once; a failed attempt is retried by the next call. */
  ready(): Promise<Docker.Container> {
    this.#ready ??= this.#open().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Removes the container if codecall created it (and `keepContainer` is off). Safe to call more than once. */
  async release(): Promise<void> {
    const container = await this.#ready?.catch(() => undefined);
    if (!container || !this.owned || this.#options.keepContainer) return;
    try {
      await container.remove({ force: true, abortSignal: this.#deadline() });
      log(() => `docker: removed container ${this.#name}`);
    } catch (error) {
      // Already gone (removed from outside, or by an earlier close): nothing left to release.
      if (statusCode(error) === 404 || /already in progress/.test(errorMessage(error))) return;
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `Could not remove container ${this.#name}: ${engineFailure(error, this.#options.engineTimeoutMs)}. Remove it with \`docker rm -f ${this.#name}\` or cleanupStaleContainers().`,
        { cause: error },
      );
    }
  }

  async goneReason(): Promise<string | undefined> {
    const container = this.#container;
    if (!container) return undefined;
    const probe = await probeExec(container, ["sh", "-c", "exit 0"], this.#options.engineTimeoutMs).catch((error: unknown) => ({
      exitCode: -1,
      output: errorMessage(error),
    }));
    if (probe.exitCode === 0) return undefined;
    // The container can run nothing more. Its state says why, once the engine has caught up.
    const deadline = Date.now() + STATE_SETTLE_MS;
    for (;;) {
      let state: Docker.ContainerInspectInfo["State"];
      try {
        state = (await container.inspect({ abortSignal: this.#deadline() })).State;
      } catch (error) {
        if (statusCode(error) === 404) return `container ${this.#name} was removed (outside codecall) while in use`;
        return `the Docker engine stopped answering (${errorMessage(error)})`;
      }
      if (state.OOMKilled) return `container ${this.#name} ran out of memory and was killed (raise the memory option)`;
      if (!state.Running) return `container ${this.#name} stopped (exit code ${state.ExitCode}): it was stopped or killed outside codecall`;
      if (state.Paused) return `container ${this.#name} is paused`;
      if (Date.now() >= deadline) return `container ${this.#name} can no longer run commands (${probe.output.trim()})`;
      await delay(50);
    }
  }

  async #open(): Promise<Docker.Container> {
    await pingEngine(this.#docker, this.#options);
    log(() => `docker: the engine at ${describeEngine(this.#options)} answers`);
    const container = this.#options.container === undefined ? await this.#create() : await this.#attach(this.#options.container);
    this.#container = container;
    try {
      await this.#checkTools(container);
    } catch (error) {
      if (!this.owned) throw error;
      const exited = await this.#exitedAtStart(container);
      await container.remove({ force: true, abortSignal: this.#deadline() }).catch(() => {});
      throw exited ?? error;
    }
    return container;
  }

  /**
   * A new container that is already gone again: its keep-alive `sh` could not run. An exec can be
   * refused ("cannot exec in a stopped state") before the engine's inspect shows the container
   * stopped, so a running state is asked again until it settles.
   */
  async #exitedAtStart(container: Docker.Container): Promise<CodecallError | undefined> {
    const deadline = Date.now() + STATE_SETTLE_MS;
    let state: Docker.ContainerInspectInfo["State"] | undefined;
    for (;;) {
      state = await container.inspect({ abortSignal: this.#deadline() }).then(
        (info) => info.State,
        () => undefined,
      );
      if (!state) return undefined;
      if (!state.Running) break;
      if (Date.now() >= deadline) return undefined;
      await delay(50);
    }
    const image = this.#options.image;
    // 127: docker-init could not exec the keep-alive (the shell's "command not found" too).
    if (state.ExitCode === 127) {
      return new CodecallError(
        "ENVIRONMENT_FAILED",
        `Image ${image} has no POSIX shell (sh): codecall runs every command through sh, so it needs an image with sh and coreutils.`,
      );
    }
    return new CodecallError(
      "ENVIRONMENT_FAILED",
      `The container from image ${image} exited right after it started (exit code ${state.ExitCode}${state.Error ? `: ${state.Error}` : ""}).`,
    );
  }

  async #create(): Promise<Docker.Container> {
    const image = this.#options.image!;
    const config = containerConfig({ ...this.#options, image }, this.sessionId, this.#name);
    let container: Docker.Container;
    try {
      container = await this.#docker.createContainer({ ...config, abortSignal: this.#deadline() });
    } catch (error) {
      if (statusCode(error) !== 404 || !/image/i.test(errorMessage(error))) throw this.#engineError(`create a container from ${image}`, error);
      if (!this.#options.pull) {
        throw new CodecallError(
          "ENVIRONMENT_FAILED",
          `Docker image ${image} is not present on the engine at ${describeEngine(this.#options)}, and codecall never pulls unless asked: ` +
            `run \`docker pull ${image}\` (or build it), or set the pull option (-o pull=true).`,
          { cause: error, details: { image } },
        );
      }
      log(() => `docker: image ${image} is not present; pulling it`);
      await this.#pull(image);
      container = await this.#docker.createContainer({ ...config, abortSignal: this.#deadline() }).catch((retryError: unknown) => {
        throw this.#engineError(`create a container from ${image}`, retryError);
      });
    }
    log(() => `docker: created container ${this.#name} (${container.id.slice(0, 12)}) from ${image}`);
    try {
      await container.start({ abortSignal: this.#deadline() });
    } catch (error) {
      await container.remove({ force: true, abortSignal: this.#deadline() }).catch(() => {});
      throw this.#engineError(`start a container from ${image}`, error);
    }
    log(() => `docker: started container ${this.#name}`);
    return container;
  }

  async #attach(reference: string): Promise<Docker.Container> {
    const container = this.#docker.getContainer(reference);
    let info: Docker.ContainerInspectInfo;
    try {
      info = await container.inspect({ abortSignal: this.#deadline() });
    } catch (error) {
      if (statusCode(error) === 404) {
        throw new CodecallError("ENVIRONMENT_FAILED", `No container ${reference} on the Docker engine at ${describeEngine(this.#options)}`, {
          cause: error,
        });
      }
      throw this.#engineError(`inspect container ${reference}`, error);
    }
    this.#name = info.Name.replace(/^\//, "");
    log(() => `docker: using container ${this.#name} (${info.Id.slice(0, 12)}, ${info.State.Status})`);
    if (!info.State.Running) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `Container ${this.#name} is not running (${info.State.Status}): start it (docker start ${this.#name}) or let codecall create one with the image option.`,
      );
    }
    return container;
  }

  async #pull(image: string): Promise<void> {
    try {
      const progress = await this.#docker.pull(image);
      await new Promise<void>((resolve, reject) =>
        this.#docker.modem.followProgress(progress, (error: Error | null) => (error ? reject(error) : resolve())),
      );
    } catch (error) {
      throw new CodecallError("ENVIRONMENT_FAILED", `Could not pull Docker image ${image}: ${errorMessage(error)}`, {
        cause: error,
        details: { image },
      });
    }
  }

  /** Fails with the list of what is missing, instead of obscure errors from the first command. */
  async #checkTools(container: Docker.Container): Promise<void> {
    const probe = await probeExec(container, ["sh", "-c", MISSING_TOOLS_PROBE], this.#options.engineTimeoutMs).catch((error: unknown) => {
      throw this.#engineError(`run a command in container ${this.#name}`, error);
    });
    const where = this.#options.image ? `Image ${this.#options.image}` : `Container ${this.#name}`;
    if (probe.exitCode !== 0) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `${where} cannot run sh (exit code ${probe.exitCode}: ${probe.output.trim()}): codecall runs every command through a POSIX sh.`,
      );
    }
    const missing = probe.output.trim();
    if (missing !== "") {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `${where} lacks ${missing.split(" ").join(", ")}: codecall's command wrapper needs sh with ${REQUIRED_TOOLS.join(", ")} ` +
          "(Debian/Ubuntu: coreutils, gawk or mawk, util-linux; Alpine: coreutils, util-linux, or busybox).",
      );
    }
  }

  /**
   * A deadline for one engine request (`engineTimeoutMs`): a hung dockerd must give a clear error,
   * not hang createEnvironment() or close(). Pulls are not bounded (they legitimately take minutes).
   */
  #deadline(): AbortSignal {
    return AbortSignal.timeout(this.#options.engineTimeoutMs);
  }

  #engineError(action: string, error: unknown): CodecallError {
    return new CodecallError("ENVIRONMENT_FAILED", `Docker could not ${action}: ${engineFailure(error, this.#options.engineTimeoutMs)}`, {
      cause: error,
    });
  }
}

function statusCode(error: unknown): number | undefined {
  return (error as { statusCode?: number } | null)?.statusCode;
}
