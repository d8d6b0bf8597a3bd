/**
 * A complete Environment from one primitive — "start a command, give me its stdio and exit" —
 * for backends that reach their environment through an exec API. Every operation goes one of two
 * ways:
 *
 * - through the environment agent (`agent: true`, see `../agent/`): one long-lived helper started
 *   through that same exec, after which a command, a file or a temp dir costs one message on its
 *   open stream instead of an exec;
 * - as plain execs (`ExecOperations`): each command one exec under core's wrapper, files through
 *   exec or the backend's native file transfer. This is the way when the agent is off, cannot
 *   start (no python3), or has died twice.
 *
 * A command the agent may have started is never run again elsewhere when the agent is lost; file
 * operations and temp dirs, which can be repeated safely, are.
 */
import { ENVIRONMENT_SPECIFICATION_VERSION } from "../specification.js";
import type {
  CommandOptions,
  Environment,
  EnvironmentCapabilities,
  EnvironmentProcess,
  ExecOptions,
  ExecResult,
  ReadFileOptions,
  SocketConnection,
  SocketListener,
  SpawnOptions,
  WriteFileOptions,
} from "../environment.js";
import { AgentLostError } from "../agent/agent-link.js";
import { AgentSupervisor } from "../agent/agent-supervisor.js";
import type { AgentWatchOptions } from "../agent/agent-watchdog.js";
import { debugLogger } from "../debug/debug-log.js";
import { CodecallError } from "../errors.js";
import { checkMaxBytes } from "../files/bounded-read.js";
import { CommandLog } from "./command-log.js";
import { ExecOperations, type NativeFiles } from "./exec-operations.js";
import { RemoteExecutor, type StartExec } from "./remote-executor.js";
import type { RemoteOperations } from "./remote-operations.js";

export type { NativeFiles } from "./exec-operations.js";

export interface ExecEnvironmentOptions {
  backendId: string;
  capabilities: EnvironmentCapabilities;
  start: StartExec;
  files?: NativeFiles;
  /**
   * Route operations through the environment agent: a python3 helper started once through
   * `start` (its source sent down its stdin), so each later operation is a message on its stream
   * rather than a new exec. Needs `capabilities.streamingStdio`, and python3 in the environment
   * (without it, plain execs are used). Default off, so a backend opts in.
   */
  agent?: boolean;
  /**
   * How an agent that stops answering while the host waits on it is noticed: pinged after
   * `silenceMs` of silence (default 15 s), given up when a ping goes unanswered for `answerMs`
   * (default 30 s) — what waited on it then fails with the reason instead of waiting forever.
   */
  agentWatch?: AgentWatchOptions;
  /**
   * Plain execs (no agent): how long after a kill — timeout, abort, close — and past its grace a
   * command's exit is waited for. A backend that reports none by then (a frozen server, an exec API
   * that lost the command) does not hold the host: the command is settled as killed, its exit and
   * result saying so (`unconfirmed`), and its streams and channel are released. Default 35 s,
   * longer than the kill retries and the in-environment timeout take.
   */
  exitAfterKillMs?: number;
  /** Where `tempDir()` creates directories (default: `$TMPDIR`, else `/tmp`, inside the environment). */
  tempRoot?: string;
  /**
   * Default working directory of commands; relative paths (a command's `cwd`, file paths) are
   * resolved against it. Without it they are relative to wherever the backend starts commands.
   */
  workdir?: string;
  /** Variables every command gets on top of the environment's own (also part of `defaultEnv()`). */
  env?: Readonly<Record<string, string>>;
  /** Releases the backend's own resources (container, connection); runs once, after running commands were killed. */
  onClose?: () => Promise<void>;
}

const log = debugLogger("backend");

export class ExecEnvironment implements Environment {
  readonly specificationVersion = ENVIRONMENT_SPECIFICATION_VERSION;
  readonly backendId: string;
  readonly capabilities: EnvironmentCapabilities;
  readonly #options: ExecEnvironmentOptions;
  readonly #plain: ExecOperations;
  readonly #agent: AgentSupervisor | undefined;
  /** Set until the first operation says the agent is off (once, in the debug log). */
  #announceAgentOff: boolean;
  #defaultEnv: Promise<Readonly<Record<string, string>>> | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;

  constructor(options: ExecEnvironmentOptions) {
    this.backendId = options.backendId;
    this.capabilities = options.capabilities;
    this.#options = options;
    const commandLog = new CommandLog(options.backendId);
    const start: StartExec = (exec) => {
      this.#assertOpen();
      return options.start(exec);
    };
    const executor = new RemoteExecutor({
      start,
      backendId: options.backendId,
      log: commandLog,
      ...(options.exitAfterKillMs === undefined ? {} : { exitAfterKillMs: options.exitAfterKillMs }),
    });
    this.#plain = new ExecOperations(executor, options.files);
    const useAgent = options.agent === true && options.capabilities.streamingStdio;
    this.#agent = useAgent
      ? new AgentSupervisor({
          backendId: options.backendId,
          start,
          killPid: (pid) => executor.run(`kill -KILL ${pid}`).then(() => {}),
          log: commandLog,
          ...(options.agentWatch === undefined ? {} : { watch: options.agentWatch }),
        })
      : undefined;
    this.#announceAgentOff = options.agent === false;
  }

  execute(command: string, options?: ExecOptions): Promise<ExecResult> {
    const resolved = this.#withDefaults(options);
    return this.#route((operations) => operations.execute(command, resolved), "never");
  }

  /** Every command is independent (an exec, or one of the agent's), so this is `execute`. */
  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.execute(command, options);
  }

  /** Through the agent, `options.whenTreeHeld` runs instead (its shepherds hold a command's tree); as a plain exec, `command`. */
  spawn(command: string, options?: SpawnOptions): Promise<EnvironmentProcess> {
    const resolved = this.#withDefaults(options);
    const held = resolved.whenTreeHeld;
    if (held?.unpack !== undefined) resolved.whenTreeHeld = { ...held, unpack: this.#resolve(held.unpack) };
    return this.#route((operations) => operations.spawn(command, resolved), "never");
  }

  writeFile(relativePath: string, data: Uint8Array | string, options: WriteFileOptions = {}): Promise<void> {
    const path = this.#resolve(relativePath);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return this.#route((operations) => operations.writeFile(path, bytes, options), "again");
  }

  readFile(relativePath: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    checkMaxBytes(options.maxBytes);
    const path = this.#resolve(relativePath);
    return this.#route((operations) => operations.readFile(path, options), "again");
  }

  async tempDir(): Promise<string> {
    const dir = await this.#route((operations) => operations.tempDir(this.#options.tempRoot), "again");
    if (!dir.startsWith("/")) throw new CodecallError("ENVIRONMENT_FAILED", `${this.backendId}: mktemp gave no directory (${dir})`);
    return dir;
  }

  remove(path: string): Promise<void> {
    const resolved = this.#resolve(path);
    return this.#route((operations) => operations.remove(resolved), "again");
  }

  /** The environment's own variables, read once (from the agent's hello, or `env -0`), plus the `env` option. */
  defaultEnv(): Promise<Readonly<Record<string, string>>> {
    this.#defaultEnv ??= this.#route((operations) => operations.defaultEnv(), "again").then((env) => ({ ...env, ...this.#options.env }));
    this.#defaultEnv.catch(() => (this.#defaultEnv = undefined));
    return this.#defaultEnv;
  }

  /**
   * A Unix socket served through the agent (see `Environment.listenUnix`); `undefined` while the
   * agent is off or down, so the stream transport starts its own relay instead.
   */
  async listenUnix(path: string, onConnection: (connection: SocketConnection) => void): Promise<SocketListener | undefined> {
    this.#assertOpen();
    const agent = await this.#agent?.operations();
    if (agent === undefined) return undefined;
    try {
      return await agent.listenUnix(this.#resolve(path), onConnection);
    } catch (error) {
      // Lost between the two: nothing listens, and the caller has its own means.
      if (error instanceof AgentLostError) return undefined;
      throw error;
    }
  }

  /** Kills what is still running (the agent ends all it started), then lets the backend release its resources. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#agent?.close();
      await this.#plain.dispose();
      await this.#options.onClose?.();
      this.#closed = true;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Runs `operation` through the agent when it is up, else as plain execs. When the agent is lost
   * under it, an operation it never received runs again on the next way (a restarted agent, or
   * plain execs); one it may have acted on runs again only when that is safe (`"again"`: files,
   * temp dirs) — a command (`"never"`) may have run, and fails instead.
   */
  async #route<T>(operation: (operations: RemoteOperations) => Promise<T>, rerun: "again" | "never"): Promise<T> {
    this.#assertOpen();
    for (;;) {
      const agent = await this.#agent?.operations();
      if (agent === undefined) {
        if (this.#announceAgentOff) {
          this.#announceAgentOff = false;
          log(() => `${this.backendId} agent: off; plain execs`);
        }
        return operation(this.#plain);
      }
      try {
        return await operation(agent);
      } catch (error) {
        if (!(error instanceof AgentLostError)) throw error;
        if (error.sent && rerun === "never") {
          throw new CodecallError(
            "ENVIRONMENT_FAILED",
            `The ${this.backendId} environment lost the command as it started it (${error.message}); it may have run, so it is not run again`,
            { cause: error },
          );
        }
      }
    }
  }

  /** The `workdir` and `env` options as defaults of one command's options. */
  #withDefaults<T extends CommandOptions>(options: T = {} as T): T {
    const { workdir, env: baseEnv } = this.#options;
    const cwd = options.cwd === undefined ? workdir : this.#resolve(options.cwd);
    const env = options.clearEnv || baseEnv === undefined ? options.env : { ...baseEnv, ...options.env };
    return { ...options, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }) };
  }

  /** Relative paths are relative to `workdir` when it is set. */
  #resolve(path: string): string {
    const { workdir } = this.#options;
    if (workdir === undefined || path.startsWith("/")) return path;
    return `${workdir.replace(/\/+$/, "")}/${path}`;
  }

  #assertOpen(): void {
    // close() still runs its cleanup commands while closing; only a finished close refuses work.
    if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", `This ${this.backendId} environment is closed`);
  }
}
