/**
 * One SSH connection per environment, opened on first use and reused by every command. Channels
 * go through a {@link ChannelLimiter} so concurrent execs never exceed the server's session limit.
 * When the connection drops between commands, the next command reconnects; a command in flight
 * when it drops fails (its `exit` rejects) and is never retried, since it may have run.
 */
import { readFile } from "node:fs/promises";
import { CodecallError, errorMessage, type ExecChannel } from "@codecall/core";
import { Client, type ClientChannel, type ConnectConfig, type SFTPWrapper } from "ssh2";
import { ChannelLimiter } from "./channel-limiter.js";
import { toExecChannel } from "./exec-channel.js";
import { prepareHostKeyCheck, type HostKeyCheck } from "./host-key-check.js";
import type { ResolvedSshOptions, SshCredentials } from "./ssh-options.js";

/** A live (or lost) ssh2 client. */
interface Link {
  readonly client: Client;
  /** Set once the connection is gone: why. */
  lost: Error | undefined;
  sftp: Promise<SFTPWrapper> | undefined;
}

/** Pauses before retrying a channel the server refused (about 2.5 s in all). */
const OPEN_RETRY_DELAYS_MS = [5, 10, 20, 40, 80, 160, 320, 640, 1280];

/** How long `close()` waits for the server to acknowledge the disconnect before dropping the socket. */
const CLOSE_GRACE_MS = 2_000;

export class SshConnection {
  readonly #options: ResolvedSshOptions;
  readonly #credentials: SshCredentials;
  readonly #limiter: ChannelLimiter;
  #link: Promise<Link> | undefined;
  #closed = false;

  constructor(options: ResolvedSshOptions) {
    this.#options = options;
    this.#credentials = options.credentials;
    this.#limiter = new ChannelLimiter(options.maxChannels);
  }

  /** `user@host:port`, for messages. */
  get target(): string {
    return `${this.#options.username}@${this.#options.host}:${this.#options.port}`;
  }

  /** Connects now unless connected already. Rejects with a clear error (host key, auth, network). */
  async connect(): Promise<void> {
    await this.#current();
  }

  /**
   * Runs `command` on a new channel, once a slot is free. `control` commands (kills) may use the
   * slot kept in reserve for them.
   */
  async exec(command: string, control = false): Promise<ExecChannel> {
    const release = await this.#limiter.acquire({ control });
    try {
      let link = await this.#current();
      let channel: ClientChannel;
      try {
        channel = await this.#openExec(link, command);
      } catch (error) {
        // The socket was found dead before the request left: nothing ran, so a fresh connection may try.
        if (!isNotConnected(error)) throw error;
        link.lost ??= new Error("the connection was closed");
        link = await this.#current();
        channel = await this.#openExec(link, command);
      }
      // A dropped connection closes its channels too, so every slot comes back.
      channel.once("close", release);
      const used = link;
      return toExecChannel(channel, () => used.lost && lostError(this.target, used.lost));
    } catch (error) {
      release();
      throw error;
    }
  }

  /** The connection's SFTP session (one channel, outside the exec limit), opened on first use. */
  async sftp(): Promise<SFTPWrapper> {
    const link = await this.#current();
    if (!link.sftp) {
      const session = new Promise<SFTPWrapper>((resolve, reject) => {
        link.client.sftp((error, sftp) => {
          if (error) {
            reject(
              new CodecallError(
                "ENVIRONMENT_FAILED",
                `ssh: ${this.target} refused an SFTP session (${error.message}); set the option sftp: false to move files through exec`,
                { cause: error },
              ),
            );
            return;
          }
          sftp.once("close", () => {
            if (link.sftp === session) link.sftp = undefined;
          });
          resolve(sftp);
        });
      });
      link.sftp = session;
      session.catch(() => {
        if (link.sftp === session) link.sftp = undefined;
      });
    }
    return link.sftp;
  }

  /** Disconnects. Commands started afterwards are refused. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const link = await this.#link?.catch(() => undefined);
    this.#link = undefined;
    if (!link || link.lost) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        link.client.destroy();
        resolve();
      }, CLOSE_GRACE_MS);
      link.client.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      link.client.end();
    });
  }

  /** The live link, (re)connecting when there is none or the last one was lost. */
  async #current(): Promise<Link> {
    for (;;) {
      if (this.#closed) throw new CodecallError("ENVIRONMENT_CLOSED", "This ssh environment is closed");
      if (!this.#link) {
        const attempt = this.#open();
        this.#link = attempt;
        attempt.catch(() => {
          if (this.#link === attempt) this.#link = undefined;
        });
      }
      const attempt = this.#link;
      const link = await attempt;
      if (!link.lost) return link;
      if (this.#link === attempt) this.#link = undefined;
    }
  }

  async #open(): Promise<Link> {
    const options = this.#options;
    const check = await prepareHostKeyCheck(options.hostKeys, options.host, options.port);
    const config = await this.#connectConfig(check);
    const client = new Client();
    const link: Link = { client, lost: undefined, sftp: undefined };
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      client.on("error", (error: Error & { level?: string }) => {
        if (ready) link.lost ??= error;
        else reject(this.#connectError(error, check));
      });
      client.once("ready", () => {
        ready = true;
        resolve();
      });
      const onGone = () => {
        if (!ready) reject(this.#connectError(new Error("the server closed the connection during the handshake"), check));
        link.lost ??= new Error("the server closed the connection");
      };
      client.once("end", onGone);
      client.once("close", onGone);
      if (this.#credentials.password !== undefined) {
        const password = this.#credentials.password;
        client.on("keyboard-interactive", (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => password)));
      }
      try {
        client.connect(config);
        // The handshake and every command are small request/response messages; Nagle's algorithm
        // would hold each back for a delayed ACK (~40 ms a step: 135 ms for a no-op command).
        client.setNoDelay(true);
      } catch (error) {
        // ssh2 parses the private key synchronously; its messages never quote the key.
        reject(
          new CodecallError(
            "INVALID_OPTIONS",
            `ssh: cannot use the private key${this.#keySource()}: ${errorMessage(error).replace(/^Cannot parse privateKey: /, "")}`,
          ),
        );
      }
    });
    return link;
  }

  async #connectConfig(check: HostKeyCheck): Promise<ConnectConfig> {
    const options = this.#options;
    const credentials = this.#credentials;
    const config: ConnectConfig = {
      host: options.host,
      port: options.port,
      username: options.username,
      readyTimeout: options.connectTimeoutMs,
      keepaliveInterval: options.keepaliveIntervalMs,
      keepaliveCountMax: options.keepaliveCountMax,
      hostVerifier: (key: Buffer) => check.verify(key),
    };
    if (check.algorithms) config.algorithms = { serverHostKey: check.algorithms as NonNullable<ConnectConfig["algorithms"]>["serverHostKey"] };
    if (credentials.privateKeyPath !== undefined) config.privateKey = await readPrivateKey(credentials.privateKeyPath);
    if (credentials.privateKey !== undefined) config.privateKey = credentials.privateKey;
    if (credentials.passphrase !== undefined) config.passphrase = credentials.passphrase;
    if (credentials.agent !== undefined) config.agent = credentials.agent;
    if (credentials.password !== undefined) {
      config.password = credentials.password;
      config.tryKeyboard = true;
    }
    return config;
  }

  /**
   * Opens a channel and starts `command` on it. sshd frees a session slot only some time after the
   * channel closes, so a slot we count as free may still be taken on the server: "open failed"
   * (nothing ran) is retried with a growing pause before it is reported.
   */
  async #openExec(link: Link, command: string): Promise<ClientChannel> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await execOnce(link.client, command);
      } catch (error) {
        if (link.lost) throw lostError(this.target, link.lost);
        const message = errorMessage(error);
        if (!/open failed/i.test(message)) {
          if (isNotConnected(error)) throw error;
          throw new CodecallError("ENVIRONMENT_FAILED", `ssh: could not start a command on ${this.target}: ${message}`, { cause: error });
        }
        if (attempt >= OPEN_RETRY_DELAYS_MS.length) {
          throw new CodecallError(
            "ENVIRONMENT_FAILED",
            `ssh: ${this.target} keeps refusing new channels (${message}): its MaxSessions is below what this environment opens; lower the maxChannels option`,
            { cause: error },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, OPEN_RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  /** A connect failure as a clear error: which host, what went wrong, what to check. Never a secret. */
  #connectError(error: Error & { level?: string }, check: HostKeyCheck): CodecallError {
    if (check.failure) return check.failure;
    const { host, port, username, connectTimeoutMs } = this.#options;
    const details = { host, port, username };
    const where = `${host}:${port}`;
    switch (error.level) {
      case "client-authentication":
        return new CodecallError(
          "ENVIRONMENT_FAILED",
          `ssh: ${username}@${where} refused the login (tried ${this.#authMethods()}). Check the username and that the server accepts these credentials`,
          { cause: error, details },
        );
      case "client-timeout":
        return new CodecallError("ENVIRONMENT_FAILED", `ssh: no SSH handshake with ${where} within ${connectTimeoutMs} ms (connectTimeoutMs)`, {
          cause: error,
          details,
        });
      case "client-socket":
      case "client-dns":
        return new CodecallError("ENVIRONMENT_FAILED", `ssh: cannot connect to ${where}: ${error.message}`, { cause: error, details });
      default:
        if (check.algorithms && /host key/i.test(error.message)) {
          return new CodecallError(
            "ENVIRONMENT_FAILED",
            `ssh: ${where} has no host key of the types known_hosts lists for it (${check.algorithms.join(", ")}): ${error.message}`,
            { cause: error, details },
          );
        }
        return new CodecallError("ENVIRONMENT_FAILED", `ssh: connecting to ${where} failed: ${error.message}`, { cause: error, details });
    }
  }

  #authMethods(): string {
    const credentials = this.#credentials;
    const methods = [
      credentials.privateKey !== undefined || credentials.privateKeyPath !== undefined ? `public key${this.#keySource()}` : undefined,
      credentials.agent !== undefined ? "agent" : undefined,
      credentials.password !== undefined ? "password" : undefined,
    ];
    return methods.filter(Boolean).join(", ");
  }

  #keySource(): string {
    return this.#credentials.privateKeyPath === undefined ? "" : ` ${this.#credentials.privateKeyPath}`;
  }
}

function execOnce(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => client.exec(command, (error, channel) => (error ? reject(error) : resolve(channel))));
}

async function readPrivateKey(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      `ssh: cannot read the private key file ${path} (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`,
    );
  }
}

function lostError(target: string, reason: Error): CodecallError {
  return new CodecallError("ENVIRONMENT_FAILED", `ssh: the connection to ${target} was lost (${reason.message})`, { cause: reason });
}

function isNotConnected(error: unknown): boolean {
  return error instanceof Error && error.message === "Not connected";
}
