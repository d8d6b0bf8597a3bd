/**
 * The modal backend: commands run in a Modal sandbox through the Modal JS SDK (`modal`). Core's
 * ExecEnvironment supplies the semantics — cwd, env (sent on stdin with each command, never in
 * argv or in Modal's sandbox definition), timeouts and process-tree kills enforced inside the
 * sandbox, files over exec; this class supplies the exec (`sandbox.exec` with streaming stdio) and
 * the sandbox's life.
 */
import { CodecallError, type EnvironmentCapabilities } from "@codecall/core";
import { ExecEnvironment } from "@codecall/core/backend-kit";
import { ModalSandbox } from "./modal-sandbox.js";
import { parseModalOptions, type ModalEnvironmentOptions } from "./modal-options.js";

/**
 * The script cannot reach a socket on this host; an exec keeps its stdin and stdout open for as
 * long as it runs, which the stream transport's relay uses. Execs run concurrently without a limit.
 */
const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: false, streamingStdio: true });

export class ModalEnvironment extends ExecEnvironment {
  readonly #sandbox: ModalSandbox;
  #closed = false;

  /** Checks the options; the sandbox is created (or found) on first use — call {@link start} to do it now. */
  constructor(options: ModalEnvironmentOptions = {}) {
    const parsed = parseModalOptions(options);
    const sandbox = new ModalSandbox(parsed);
    super({
      backendId: "modal",
      capabilities: CAPABILITIES,
      start: ({ argv, streaming }) => sandbox.exec(argv, streaming === true),
      agent: parsed.agent,
      ...(parsed.workdir === undefined ? {} : { workdir: parsed.workdir }),
      env: parsed.env,
      ...(parsed.tempRoot === undefined ? {} : { tempRoot: parsed.tempRoot }),
      onClose: () => sandbox.close(),
    });
    this.#sandbox = sandbox;
  }

  /** Creates the sandbox (or finds the one to attach to). Idempotent. */
  async start(): Promise<this> {
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This modal environment is closed");
    await this.#sandbox.open();
    return this;
  }

  override close(): Promise<void> {
    this.#closed = true;
    return super.close();
  }

  /** The sandbox's id (`sb-…`), once it exists: pass it as `sandboxId` to attach to it from elsewhere. */
  get sandboxId(): string | undefined {
    return this.#sandbox.sandboxId;
  }
}

/**
 * Creates the environment and its sandbox (the backend entry point the resolver calls), so missing
 * or refused credentials, an unreachable API, an unknown image or a stale sandbox id are reported
 * here rather than at the first command.
 */
export async function createEnvironment(options: ModalEnvironmentOptions = {}): Promise<ModalEnvironment> {
  const environment = new ModalEnvironment(options);
  try {
    return await environment.start();
  } catch (error) {
    await environment.close().catch(() => {});
    throw error;
  }
}
