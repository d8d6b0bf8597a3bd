/**
 * The docker backend: an Environment whose commands run as execs in one container. Core's
 * ExecEnvironment supplies the semantics (cwd, env, timeouts, process-tree kills inside the
 * container, files over exec); this class supplies the exec and the container's life.
 */
import { CodecallError, type EnvironmentCapabilities } from "@codecall/core";
import { ExecEnvironment } from "@codecall/core/backend-kit";
import { ContainerSession } from "./container-session.js";
import { dockerClient } from "./docker-connection.js";
import { startDockerExec } from "./docker-exec.js";
import type { DockerEnvironmentOptions } from "./docker-options.js";
import { parseDockerOptions } from "./parse-options.js";

/**
 * No host sockets (the container has its own filesystem); stdio stays open for the life of an
 * exec, which a stream transport can use. Execs are independent, so there is no limit to announce.
 */
const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: false, streamingStdio: true });

export class DockerEnvironment extends ExecEnvironment {
  readonly #session: ContainerSession;
  #closed = false;

  /**
   * Checks the options; the container is created (or found) on first use — call {@link start}
   * to do it now. {@link createEnvironment} does both.
   */
  constructor(options: DockerEnvironmentOptions) {
    const parsed = parseDockerOptions(options);
    const session = new ContainerSession(dockerClient(parsed), parsed);
    super({
      backendId: "docker",
      capabilities: CAPABILITIES,
      start: async ({ argv }) => {
        await session.ready();
        return startDockerExec(session, argv);
      },
      agent: parsed.agent,
      onClose: () => session.release(),
    });
    this.#session = session;
  }

  /** Creates (or finds) the container and checks it can run codecall's commands. Idempotent. */
  async start(): Promise<this> {
    // Commands are refused after close() by ExecEnvironment; a late start() must not make a new container either.
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This docker environment is closed");
    await this.#session.ready();
    return this;
  }

  override close(): Promise<void> {
    this.#closed = true;
    return super.close();
  }

  /** The container's name; also its hostname when codecall created it. */
  get containerName(): string {
    return this.#session.name;
  }

  /** The container's id, once started. */
  get containerId(): string | undefined {
    return this.#session.containerId;
  }

  /** The random id of this environment, in the `codecall.session` label of its container. */
  get sessionId(): string {
    return this.#session.sessionId;
  }
}

/**
 * Creates a docker environment and starts its container, so a wrong image, a missing tool or an
 * unreachable engine fails here rather than at the first command. The resolver's entry point
 * (`--backend docker`).
 */
export async function createEnvironment(options: DockerEnvironmentOptions): Promise<DockerEnvironment> {
  return new DockerEnvironment(options).start();
}
