/**
 * The SSH backend: commands run on a remote host over one reused ssh2 connection. Core's
 * `ExecEnvironment` supplies the Environment semantics — cwd, env (sent base64 on stdin, so
 * sshd's AcceptEnv filter never drops it and `ps` never shows it), timeouts and process-tree
 * kills enforced on the host itself (SSH signals are refused for root logins, and closing a
 * channel leaves the process running). This package only carries bytes: channels, SFTP, the
 * connection's lifecycle, and host key verification.
 */
import { ExecEnvironment } from "@codecall/core/backend-kit";
import { sftpFiles } from "./sftp-files.js";
import { SshConnection } from "./ssh-connection.js";
import { resolveSshOptions, type ResolvedSshOptions, type SshEnvironmentOptions } from "./ssh-options.js";

export class SshEnvironment extends ExecEnvironment {
  readonly #connection: SshConnection;

  /** Validates `options` (throws `INVALID_OPTIONS`); connects on first use, or call {@link connect}. */
  constructor(options: SshEnvironmentOptions) {
    const resolved: ResolvedSshOptions = resolveSshOptions(options);
    const connection = new SshConnection(resolved);
    super({
      backendId: "ssh",
      capabilities: { hostSockets: false, streamingStdio: true, maxConcurrentExec: resolved.maxChannels },
      start: (exec) => connection.exec(exec.command, exec.control),
      agent: resolved.environmentAgent,
      ...(resolved.sftp ? { files: sftpFiles(() => connection.sftp()) } : {}),
      ...(resolved.tempRoot === undefined ? {} : { tempRoot: resolved.tempRoot }),
      ...(resolved.workdir === undefined ? {} : { workdir: resolved.workdir }),
      env: resolved.env,
      onClose: () => connection.close(),
    });
    this.#connection = connection;
  }

  /** Opens the connection now (otherwise the first command does). Rejects with a clear error: host key, login, network. */
  connect(): Promise<void> {
    return this.#connection.connect();
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
