/**
 * The SSH backend: commands run on a remote host over one reused ssh2 connection. Core's
 * `ExecEnvironment` supplies the Environment semantics — cwd, env (sent base64 on stdin, so
 * sshd's AcceptEnv filter never drops it and `ps` never shows it), timeouts and process-tree
 * kills enforced on the host itself (SSH signals are refused for root logins, and closing a
 * channel leaves the process running). This package only carries bytes: channels, SFTP, the
 * connection's lifecycle, and host key verification.
 */
import { posix } from "node:path";
import {
  ExecEnvironment,
  type CommandOptions,
  type ExecOptions,
  type ExecResult,
  type RemoteProcess,
  type SpawnOptions,
  type WriteFileOptions,
} from "@codecall/core";
import { sftpFiles } from "./sftp-files.js";
import { SshConnection } from "./ssh-connection.js";
import { resolveSshOptions, type ResolvedSshOptions, type SshEnvironmentOptions } from "./ssh-options.js";

export class SshEnvironment extends ExecEnvironment {
  readonly #connection: SshConnection;
  readonly #workdir: string | undefined;
  readonly #env: Readonly<Record<string, string>>;

  /** Validates `options` (throws `INVALID_OPTIONS`); connects on first use, or call {@link connect}. */
  constructor(options: SshEnvironmentOptions) {
    const resolved: ResolvedSshOptions = resolveSshOptions(options);
    const connection = new SshConnection(resolved);
    super({
      backendId: "ssh",
      capabilities: { hostSockets: false, streamingStdio: true, maxConcurrentExec: resolved.maxChannels },
      start: (exec) => connection.exec(exec.command, exec.control),
      ...(resolved.sftp ? { files: sftpFiles(() => connection.sftp()) } : {}),
      ...(resolved.tempRoot === undefined ? {} : { tempRoot: resolved.tempRoot }),
      onClose: () => connection.close(),
    });
    this.#connection = connection;
    this.#workdir = resolved.workdir;
    this.#env = resolved.env;
  }

  /** Opens the connection now (otherwise the first command does). Rejects with a clear error: host key, login, network. */
  connect(): Promise<void> {
    return this.#connection.connect();
  }

  override execute(command: string, options?: ExecOptions): Promise<ExecResult> {
    return super.execute(command, this.#withDefaults(options));
  }

  override executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    return super.executeOneshot(command, this.#withDefaults(options));
  }

  override spawn(command: string, options?: SpawnOptions): Promise<RemoteProcess> {
    return super.spawn(command, this.#withDefaults(options));
  }

  override writeFile(path: string, data: Uint8Array | string, options?: WriteFileOptions): Promise<void> {
    return super.writeFile(this.#resolve(path), data, options);
  }

  override readFile(path: string): Promise<Uint8Array> {
    return super.readFile(this.#resolve(path));
  }

  override remove(path: string): Promise<void> {
    return super.remove(this.#resolve(path));
  }

  /** The login's environment on the host, plus the `env` option. */
  override async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return { ...(await super.defaultEnv()), ...this.#env };
  }

  /** The `workdir` and `env` options as defaults of one command's options. */
  #withDefaults<T extends CommandOptions>(options: T = {} as T): T {
    const cwd = options.cwd === undefined ? this.#workdir : this.#resolve(options.cwd);
    const env = options.clearEnv ? options.env : { ...this.#env, ...options.env };
    return { ...options, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }) };
  }

  /** Relative paths are relative to `workdir` when it is set (else to the login's home, as SSH does). */
  #resolve(path: string): string {
    return this.#workdir === undefined || posix.isAbsolute(path) ? path : posix.join(this.#workdir, path);
  }
}

/**
 * Creates an SSH environment and connects (the backend entry point the resolver calls), so a wrong
 * host key, a refused login or an unreachable host is reported here rather than at the first command.
 */
export async function createEnvironment(options: SshEnvironmentOptions): Promise<SshEnvironment> {
  const environment = new SshEnvironment(options);
  try {
    await environment.connect();
  } catch (error) {
    await environment.close();
    throw error;
  }
  return environment;
}
