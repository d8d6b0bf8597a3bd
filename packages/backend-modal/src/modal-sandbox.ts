/**
 * One Modal sandbox and the client that reaches it: created (app, image, sandbox) or attached to
 * (by id or by name), commands exec'd into it, and its end. `close()` terminates a sandbox this
 * object created and never one it attached to; it detaches from the sandbox and closes the client
 * either way.
 */
import { setMaxListeners } from "node:events";
import { CodecallError } from "@codecall/core";
import { debugLogger, type ExecChannel } from "@codecall/core/backend-kit";
import { ModalClient, type Sandbox, type SandboxCreateParams } from "modal";
import { hasCredentials, isNotFound, missingCredentials, modalFailure } from "./modal-errors.js";
import { toExecChannel } from "./modal-exec.js";
import { untilStopped } from "./until-stopped.js";
import type { ParsedModalOptions } from "./modal-options.js";
import { SandboxWatch } from "./sandbox-watch.js";
import { sdkLogger } from "./sdk-logger.js";

const log = debugLogger("backend");

/** A registry tag or an image id: Modal's image ids start with this. */
const IMAGE_ID_PREFIX = "im-";

export class ModalSandbox {
  readonly #options: ParsedModalOptions;
  /** Aborts (reason: the error to report) when the sandbox can no longer run commands: it ended, or close began. */
  readonly #lost = new AbortController();
  #client: ModalClient | undefined;
  #opening: Promise<{ sandbox: Sandbox; watch: SandboxWatch }> | undefined;
  #owned = false;
  #closing: Promise<void> | undefined;
  #sandboxId: string | undefined;

  constructor(options: ParsedModalOptions) {
    this.#options = options;
    // One listener per running command (removed when it ends): many at once is normal, not a leak.
    setMaxListeners(0, this.#lost.signal);
  }

  /** The sandbox's id, once it is open. */
  get sandboxId(): string | undefined {
    return this.#sandboxId;
  }

  /** Creates or finds the sandbox (once; a failure is retried on the next call). */
  open(): Promise<{ sandbox: Sandbox; watch: SandboxWatch }> {
    if (this.#closing) return Promise.reject(closedError());
    this.#opening ??= this.#open();
    this.#opening.catch(() => (this.#opening = undefined));
    return this.#opening;
  }

  /** Runs `argv` in the sandbox, with binary stdio; `streaming`: fed while it runs (see `toExecChannel`). */
  async exec(argv: string[], streaming = false): Promise<ExecChannel> {
    const { sandbox, watch } = await this.open();
    const lost = this.#lost.signal;
    if (lost.aborted) throw lost.reason as Error;
    watch.touch();
    const release = watch.hold();
    try {
      const process = await untilStopped(sandbox.exec(argv, { mode: "binary" }), lost);
      const channel = toExecChannel(process, lost, () => void watch.check(), streaming);
      channel.exit.then(release, release);
      return channel;
    } catch (error) {
      release();
      if (lost.aborted) throw lost.reason as Error;
      // Maybe the sandbox ended in between: say so rather than what the router said.
      await watch.check();
      if (lost.aborted) throw lost.reason as Error;
      throw modalFailure(`start a command in the sandbox ${sandbox.sandboxId}`, error, this.#serverUrl());
    }
  }

  /** Terminates the sandbox if this object created it (and it still runs), detaches, closes the client. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #open(): Promise<{ sandbox: Sandbox; watch: SandboxWatch }> {
    const options = this.#options;
    const client = (this.#client ??= new ModalClient({
      ...(options.tokenId === undefined ? {} : { tokenId: options.tokenId, tokenSecret: options.tokenSecret! }),
      ...(options.environment === undefined ? {} : { environment: options.environment }),
      logger: sdkLogger,
    }));
    if (!hasCredentials(client.profile)) throw missingCredentials();
    const started = performance.now();
    const sandbox =
      options.sandboxId !== undefined
        ? await this.#attachById(options.sandboxId)
        : options.sandboxName !== undefined
          ? await this.#attachByName(options.sandboxName)
          : await this.#create();
    this.#sandboxId = sandbox.sandboxId;
    log(() => `modal: ${this.#owned ? "created" : "attached to"} sandbox ${sandbox.sandboxId} in ${Math.round(performance.now() - started)} ms`);
    // A close() that began meanwhile waits for this, and ends what was made.
    return { sandbox, watch: new SandboxWatch(sandbox, this.#lost) };
  }

  async #create(): Promise<Sandbox> {
    const client = this.#client!;
    const options = this.#options;
    const app = await client.apps.fromName(options.appName, { createIfMissing: true }).catch((error: unknown) => {
      throw modalFailure(`open the app ${options.appName}`, error, this.#serverUrl());
    });
    const image = options.image.startsWith(IMAGE_ID_PREFIX)
      ? await client.images.fromId(options.image).catch((error: unknown) => {
          throw modalFailure(`find the image ${options.image}`, error, this.#serverUrl());
        })
      : client.images.fromRegistry(options.image);
    log(() => `modal: creating a sandbox in app ${options.appName} from ${options.image}`);
    try {
      const sandbox = await client.sandboxes.create(app, image, this.#createParams());
      this.#owned = true;
      return sandbox;
    } catch (error) {
      // The SDK reports a failed build as a plain Error whose message starts so.
      const action = error instanceof Error && error.message.startsWith("Image build for") ? `build the image ${options.image}` : "create a sandbox";
      throw modalFailure(action, error, this.#serverUrl());
    }
  }

  #createParams(): SandboxCreateParams {
    const options = this.#options;
    return {
      timeoutMs: options.lifetimeMs,
      tags: { ...options.tags, codecall: "true" },
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
      ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
      ...(options.memoryMiB === undefined ? {} : { memoryMiB: options.memoryMiB }),
      ...(options.regions === undefined ? {} : { regions: options.regions }),
      ...(options.cloud === undefined ? {} : { cloud: options.cloud }),
      ...(options.blockNetwork ? { blockNetwork: true } : {}),
      ...(options.cidrAllowlist === undefined ? {} : { outboundCidrAllowlist: options.cidrAllowlist }),
    };
  }

  async #attachById(id: string): Promise<Sandbox> {
    const sandbox = await this.#client!.sandboxes.fromId(id);
    await this.#assertRunning(sandbox, `find the sandbox ${id}`);
    return sandbox;
  }

  async #attachByName(name: string): Promise<Sandbox> {
    const { appName, environment } = this.#options;
    const sandbox = await this.#client!.sandboxes.fromName(appName, name, environment === undefined ? {} : { environment }).catch(
      (error: unknown) => {
        throw modalFailure(`find the sandbox named ${name} in app ${appName}`, error, this.#serverUrl());
      },
    );
    await this.#assertRunning(sandbox, `find the sandbox named ${name}`);
    return sandbox;
  }

  /** An attached sandbox must exist and still run: checked now, so a stale id fails here rather than at the first command. */
  async #assertRunning(sandbox: Sandbox, action: string): Promise<void> {
    let exitCode: number | null;
    try {
      exitCode = await sandbox.poll();
    } catch (error) {
      throw isNotFound(error)
        ? new CodecallError("ENVIRONMENT_FAILED", `modal: there is no sandbox ${sandbox.sandboxId}`, {
            cause: error,
            details: { reason: "not-found" },
          })
        : modalFailure(action, error, this.#serverUrl());
    }
    if (exitCode !== null) {
      throw new CodecallError("ENVIRONMENT_FAILED", `modal: the sandbox ${sandbox.sandboxId} has already ended (exit code ${exitCode})`, {
        details: { reason: "ended", exitCode },
      });
    }
  }

  async #close(): Promise<void> {
    // An open() still in flight is waited for: a sandbox it creates is ended too.
    const opened = await this.#opening?.catch(() => undefined);
    const sandbox = opened?.sandbox;
    opened?.watch.stop();
    const alreadyLost = this.#lost.signal.aborted;
    this.#lost.abort(closedError());
    try {
      if (sandbox && this.#owned && !alreadyLost) {
        await sandbox.terminate().catch((error: unknown) => {
          throw modalFailure(`terminate the sandbox ${sandbox.sandboxId}`, error, this.#serverUrl());
        });
        log(() => `modal: terminated sandbox ${sandbox.sandboxId}`);
      } else if (sandbox) log(() => `modal: detached from sandbox ${sandbox.sandboxId}${this.#owned ? "" : " (left running: it was attached to)"}`);
    } finally {
      sandbox?.detach();
      this.#client?.close();
    }
  }

  #serverUrl(): string {
    return this.#client?.profile.serverUrl ?? "the Modal API";
  }
}

function closedError(): CodecallError {
  return new CodecallError("ENVIRONMENT_CLOSED", "This modal environment is closed");
}
