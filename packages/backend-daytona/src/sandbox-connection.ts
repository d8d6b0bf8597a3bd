/**
 * One Daytona sandbox and what runs in it: the SDK client, the sandbox (created, or attached to),
 * its sessions, the liveness watch, and the commands. The sandbox is opened once, on first use;
 * a failed open is retried by the next use. `close()` deletes the sandbox only when this
 * connection created it; an attached one keeps running, with this connection's sessions deleted.
 */
import { CodecallError, errorMessage } from "@codecall/core";
import { collectProcess, debugLogger, newRunId, type ExecChannel, type ExecRequest } from "@codecall/core/backend-kit";
import {
  loadDaytonaSdk,
  type DaytonaClient,
  type DaytonaClientConfig,
  type DaytonaSandbox,
  type SandboxCreateParams,
  type SdkImporter,
} from "./daytona-sdk.js";
import { sdkFailure, statusOf } from "./daytona-errors.js";
import type { ParsedDaytonaOptions } from "./daytona-options.js";
import { LivenessWatch } from "./liveness-watch.js";
import { SessionExec, type SessionHost } from "./session-exec.js";
import { SessionPool } from "./session-pool.js";

/** States in which a sandbox runs no commands (Daytona's `SandboxState` values). */
const DEAD_STATES = new Set(["destroyed", "destroying", "stopped", "stopping", "error", "build_failed", "archived", "archiving"]);

/** Failed sandbox checks in a row after which the API counts as unreachable. */
const API_FAILURES_TOLERATED = 2;

/** The most output a helper command of this package (pwd, chmod, a file check) brings back. */
const HELPER_OUTPUT_BYTES = 64 * 1024;

const log = debugLogger("backend");

/** A file transfer under {@link SandboxConnection.watched}. */
export interface Transfer {
  /** Aborted (with the reason) when the transfer must end: the sandbox was lost, or its `stalled` check failed it. */
  readonly lost: AbortSignal;
  /** Bytes moved: the transfer is not quiet. */
  readonly progress: () => void;
}

interface OpenSandbox {
  readonly client: DaytonaClient;
  readonly sandbox: DaytonaSandbox;
  readonly host: SessionHost;
  readonly owned: boolean;
}

export class SandboxConnection {
  readonly #options: ParsedDaytonaOptions;
  readonly #importSdk: SdkImporter | undefined;
  #open: Promise<OpenSandbox> | undefined;
  #gone: CodecallError | undefined;
  #apiFailures = 0;
  #cwd: Promise<string> | undefined;
  #closed = false;

  constructor(options: ParsedDaytonaOptions, importSdk?: SdkImporter) {
    this.#options = options;
    this.#importSdk = importSdk;
  }

  /** Creates (or attaches to) the sandbox once; a failure is retried by the next call. */
  ready(): Promise<OpenSandbox> {
    if (this.#closed) return Promise.reject(new CodecallError("ENVIRONMENT_CLOSED", "This daytona environment is closed"));
    this.#open ??= this.#connect();
    this.#open.catch(() => (this.#open = undefined));
    return this.#open;
  }

  /** The sandbox's id, once open. */
  async sandboxId(): Promise<string> {
    return (await this.ready()).sandbox.id;
  }

  /** Starts a command in a session of its own (core's StartExec). */
  async exec(request: ExecRequest): Promise<ExecChannel> {
    const { host } = await this.ready();
    if (this.#gone) throw this.#gone;
    return new SessionExec(host, request);
  }

  /**
   * Runs an SDK call of this sandbox's toolbox that is no command (a file transfer) under the
   * liveness watch: a sandbox that goes away fails it with the reason — its request may never
   * end — and a sandbox known to be gone refuses it at once. The transfer's `lost` aborts with
   * that reason. A transfer that moved nothing for a few liveness intervals while the sandbox is up
   * is asked about with `stalled` (e.g. a FIFO took the path's place, so the daemon's open of it
   * waits for ever): an error it answers fails the transfer the same way.
   */
  async watched<T>(
    call: (sandbox: DaytonaSandbox, transfer: Transfer) => Promise<T>,
    stalled?: (sandbox: DaytonaSandbox) => Promise<CodecallError | undefined>,
  ): Promise<T> {
    const { sandbox, host } = await this.ready();
    if (this.#gone) throw this.#gone;
    const lost = new AbortController();
    const watchedTransfer = {
      lastActivity: performance.now(),
      lost: (error: CodecallError) => lost.abort(error),
      poke: async () => {
        const problem = await stalled?.(sandbox).catch(() => undefined);
        if (problem) lost.abort(problem);
      },
    };
    const gone = new Promise<never>((_resolve, reject) =>
      lost.signal.addEventListener("abort", () => reject(lost.signal.reason as Error), { once: true }),
    );
    const transfer: Transfer = { lost: lost.signal, progress: () => (watchedTransfer.lastActivity = performance.now()) };
    host.watch.add(watchedTransfer);
    try {
      return await Promise.race([call(sandbox, transfer), gone]);
    } finally {
      host.watch.delete(watchedTransfer);
    }
  }

  /** Runs a short `sh -c` script of this package's own (not wrapped by core) and collects it. */
  async run(script: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const channel = await this.exec({ argv: ["sh", "-c", script], command: script });
    const collected = await collectProcess(
      { stdin: channel.stdin, stdout: channel.stdout, stderr: channel.stderr, wait: () => channel.exit, kill: async () => channel.close() },
      { maxOutputBytes: HELPER_OUTPUT_BYTES },
    );
    return { exitCode: collected.exit.exitCode, stdout: collected.stdout.text, stderr: collected.stderr.text };
  }

  /** The directory session commands start in (what relative paths mean without `workdir`). */
  cwd(): Promise<string> {
    this.#cwd ??= this.run("pwd -P").then(({ stdout }) => stdout.trim());
    this.#cwd.catch(() => (this.#cwd = undefined));
    return this.#cwd;
  }

  /** Deletes the sandbox if this connection created it, else only its sessions; releases the client. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const open = await this.#open?.catch(() => undefined);
    if (!open) return;
    const { client, sandbox, host, owned } = open;
    host.watch.stop();
    try {
      if (owned) {
        await sandbox.delete().catch((error: unknown) => {
          // Already gone is what close wants.
          if (statusOf(error) !== 404) throw sdkFailure(error, `deleting the sandbox ${sandbox.id}`);
        });
        log(() => `daytona: sandbox ${sandbox.id} deleted`);
      } else {
        await host.pool.close();
        log(() => `daytona: left sandbox ${sandbox.id} running (attached, not ours)`);
      }
    } finally {
      await client[Symbol.asyncDispose]().catch(() => {});
    }
  }

  async #connect(): Promise<OpenSandbox> {
    const { sdk, name } = await loadDaytonaSdk(this.#importSdk);
    const options = this.#options;
    const config: DaytonaClientConfig = {
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
      ...(options.target === undefined ? {} : { target: options.target }),
    };
    let client: DaytonaClient;
    try {
      client = new sdk.Daytona(config);
    } catch (error) {
      // The SDK found no credentials in the options, the environment or `.env`.
      if ((error as { name?: unknown }).name === "DaytonaAuthenticationError") {
        throw new CodecallError(
          "ENVIRONMENT_FAILED",
          "daytona: no API key: give apiKey (-o apiKey=…) or set DAYTONA_API_KEY (or DAYTONA_JWT_TOKEN with DAYTONA_ORGANIZATION_ID)",
          { cause: error },
        );
      }
      throw sdkFailure(error, "connecting to Daytona");
    }
    try {
      const started = performance.now();
      const owned = options.sandbox === undefined;
      const sandbox = owned ? await this.#create(client) : await this.#attach(client, options.sandbox!);
      log(() => `daytona: sandbox ${sandbox.id} ${owned ? "created" : "attached"} in ${Math.round(performance.now() - started)} ms (${name})`);
      const host: SessionHost = {
        process: sandbox.process,
        pool: new SessionPool(sandbox.process),
        watch: new LivenessWatch(options.livenessIntervalMs, () => this.#problem(sandbox)),
        failure: async (error, doing) => (await this.#problem(sandbox)) ?? sdkFailure(error, doing),
      };
      return { client, sandbox, host, owned };
    } catch (error) {
      await client[Symbol.asyncDispose]().catch(() => {});
      throw error;
    }
  }

  async #create(client: DaytonaClient): Promise<DaytonaSandbox> {
    const options = this.#options;
    // Named by us, so a sandbox that fails to start (create() then throws, giving no handle) can still be found and deleted.
    const name = options.name ?? `codecall-${newRunId()}`;
    const resources = { cpu: options.cpu, memory: options.memory, disk: options.disk };
    const params: SandboxCreateParams = {
      name,
      labels: { ...options.labels, codecall: "true" },
      autoStopInterval: options.autoStopInterval,
      ephemeral: options.ephemeral,
      ...(options.image === undefined ? {} : { image: options.image }),
      ...(options.snapshot === undefined ? {} : { snapshot: options.snapshot }),
      ...(Object.values(resources).some((value) => value !== undefined) ? { resources: withoutUndefined(resources) } : {}),
      ...(options.networkBlockAll ? { networkBlockAll: true } : {}),
      ...(options.networkAllowList.length > 0 ? { networkAllowList: options.networkAllowList.join(",") } : {}),
    };
    log(() => `daytona: creating sandbox ${name} (${options.image ? `image ${options.image}` : `snapshot ${options.snapshot ?? "default"}`})`);
    try {
      return await client.create(params, { timeout: options.startTimeoutMs / 1000 });
    } catch (error) {
      await client
        .get(name)
        .then((sandbox) => sandbox.delete())
        .catch(() => {});
      throw sdkFailure(error, `creating the sandbox ${name}`);
    }
  }

  async #attach(client: DaytonaClient, idOrName: string): Promise<DaytonaSandbox> {
    let sandbox: DaytonaSandbox;
    try {
      sandbox = await client.get(idOrName);
    } catch (error) {
      throw statusOf(error) === 404
        ? new CodecallError("ENVIRONMENT_FAILED", `daytona: there is no sandbox ${JSON.stringify(idOrName)} (option sandbox)`, { cause: error })
        : sdkFailure(error, `finding the sandbox ${idOrName}`);
    }
    if (sandbox.state !== "started") {
      log(() => `daytona: starting sandbox ${sandbox.id} (it was ${sandbox.state})`);
      await sandbox.start(this.#options.startTimeoutMs / 1000).catch((error: unknown) => {
        throw sdkFailure(error, `starting the sandbox ${sandbox.id}`);
      });
    }
    return sandbox;
  }

  /** Why the sandbox cannot run commands any more (one API call), or undefined while it can. */
  async #problem(sandbox: DaytonaSandbox): Promise<CodecallError | undefined> {
    if (this.#gone) return this.#gone;
    try {
      await sandbox.refreshData();
      this.#apiFailures = 0;
    } catch (error) {
      if (statusOf(error) === 404) return this.#markGone(`the sandbox ${sandbox.id} was deleted`);
      this.#apiFailures += 1;
      if (this.#apiFailures < API_FAILURES_TOLERATED) return undefined;
      return new CodecallError(
        "ENVIRONMENT_FAILED",
        `daytona: cannot reach the Daytona API to check the sandbox ${sandbox.id}: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    const state = sandbox.state ?? "unknown";
    if (!DEAD_STATES.has(state)) return undefined;
    const reason = sandbox.errorReason ? ` (${sandbox.errorReason})` : "";
    return this.#markGone(
      state === "destroyed" || state === "destroying" ? `the sandbox ${sandbox.id} was deleted` : `the sandbox ${sandbox.id} is ${state}${reason}`,
    );
  }

  #markGone(why: string): CodecallError {
    this.#gone = new CodecallError("ENVIRONMENT_FAILED", `daytona: ${why}; its commands were lost`);
    log(() => this.#gone!.message);
    return this.#gone;
  }
}

function withoutUndefined<T extends Record<string, number | undefined>>(values: T): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<string, number>;
}
