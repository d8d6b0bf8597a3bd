/**
 * The singularity backend: commands run in one Apptainer/Singularity instance on this machine.
 * Core's ExecEnvironment supplies the semantics (cwd, env on stdin, timeouts and process-tree kills
 * inside the instance, files over exec); this class supplies the exec and the instance's life.
 */
import { CodecallError, type EnvironmentCapabilities } from "@codecall/core";
import { ExecEnvironment } from "@codecall/core/backend-kit";
import { InstanceSession } from "./instance-session.js";
import { parseSingularityOptions, type SingularityEnvironmentOptions } from "./singularity-options.js";

/**
 * No host sockets (under `--containall` the instance has its own /tmp; a shared one is not
 * assumed); an exec's stdio is a local pipe that stays open, which the stream transport uses.
 */
const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: false, streamingStdio: true });

export class SingularityEnvironment extends ExecEnvironment {
  readonly #session: InstanceSession;
  #closed = false;

  /** Checks the options; the instance starts on first use — call {@link start} to do it now. */
  constructor(options: SingularityEnvironmentOptions) {
    const parsed = parseSingularityOptions(options);
    const session = new InstanceSession(parsed);
    super({
      backendId: "singularity",
      capabilities: CAPABILITIES,
      start: ({ argv }) => session.exec(argv),
      agent: parsed.agent,
      ...(parsed.workdir === undefined ? {} : { workdir: parsed.workdir }),
      env: parsed.env,
      ...(parsed.tempRoot === undefined ? {} : { tempRoot: parsed.tempRoot }),
      onClose: () => session.release(),
    });
    this.#session = session;
  }

  /** Starts the instance (or checks the given one answers). Idempotent. */
  async start(): Promise<this> {
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This singularity environment is closed");
    await this.#session.ready();
    return this;
  }

  override close(): Promise<void> {
    this.#closed = true;
    this.#session.markClosing();
    return super.close();
  }

  /** The instance's name (`instance://NAME`). */
  get instanceName(): string {
    return this.#session.name;
  }
}

/**
 * Creates the environment and starts its instance (the backend entry point the resolver calls), so
 * a missing CLI, a bad image or an instance that cannot run commands is reported here.
 */
export async function createEnvironment(options: SingularityEnvironmentOptions): Promise<SingularityEnvironment> {
  const environment = new SingularityEnvironment(options);
  try {
    return await environment.start();
  } catch (error) {
    await environment.close().catch(() => {});
    throw error;
  }
}
