/**
 * The Daytona backend: commands run in a Daytona sandbox through the Daytona TypeScript SDK.
 * Core's `ExecEnvironment` supplies the Environment semantics — cwd, env (in a header on stdin,
 * never in argv), timeouts and process-tree kills enforced inside the sandbox, with a host
 * backstop. This package supplies the command primitive (session commands, see session-exec.ts),
 * files through the toolbox's bulk upload and download, and the sandbox's life.
 */
import { CodecallError, type EnvironmentCapabilities } from "@codecall/core";
import { ExecEnvironment } from "@codecall/core/backend-kit";
import type { SdkImporter } from "./daytona-sdk.js";
import { daytonaFiles } from "./daytona-files.js";
import { parseDaytonaOptions, type DaytonaEnvironmentOptions } from "./daytona-options.js";
import { SandboxConnection } from "./sandbox-connection.js";

/**
 * No host sockets; a spawned command keeps its stdin (session input) and output (the log
 * stream) open while it runs, which the stream transport's relay uses. No limit on commands at
 * once: each takes a session, made when none is idle.
 */
const CAPABILITIES: EnvironmentCapabilities = Object.freeze({ hostSockets: false, streamingStdio: true });

export class DaytonaEnvironment extends ExecEnvironment {
  readonly #connection: SandboxConnection;
  #closed = false;

  /**
   * Checks the options (throws `INVALID_OPTIONS`); the sandbox is created on first use — call
   * {@link start} to do it now. `importSdk` replaces how the SDK is imported (tests).
   */
  constructor(options: DaytonaEnvironmentOptions, importSdk?: SdkImporter) {
    const parsed = parseDaytonaOptions(options);
    const connection = new SandboxConnection(parsed, importSdk);
    super({
      backendId: "daytona",
      capabilities: CAPABILITIES,
      start: (exec) => connection.exec(exec),
      agent: parsed.agent,
      files: daytonaFiles(connection),
      ...(parsed.workdir === undefined ? {} : { workdir: parsed.workdir }),
      ...(parsed.tempRoot === undefined ? {} : { tempRoot: parsed.tempRoot }),
      env: parsed.env,
      onClose: () => connection.close(),
    });
    this.#connection = connection;
  }

  /** Creates the sandbox (or attaches to the given one, starting it if stopped). Idempotent. */
  async start(): Promise<this> {
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This daytona environment is closed");
    await this.#connection.ready();
    return this;
  }

  /** The sandbox's id (creating it if needed). */
  sandboxId(): Promise<string> {
    return this.#connection.sandboxId();
  }

  override close(): Promise<void> {
    this.#closed = true;
    return super.close();
  }
}

/**
 * Creates the environment and its sandbox (the backend entry point the resolver calls), so a
 * missing SDK or API key, a refused key or a sandbox that fails to start is reported here.
 */
export async function createEnvironment(options: DaytonaEnvironmentOptions = {}): Promise<DaytonaEnvironment> {
  const environment = new DaytonaEnvironment(options);
  try {
    return await environment.start();
  } catch (error) {
    await environment.close().catch(() => {});
    throw error;
  }
}
