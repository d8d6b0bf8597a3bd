/**
 * The options of the SSH backend and their validation. Options are plain JSON so the CLI
 * (`-o key=value`) and config files can carry them; values typed by the CLI (a numeric
 * passphrase arrives as a number) are coerced back. Error messages name options, never values.
 */
import { homedir, userInfo } from "node:os";
import path from "node:path";
import { CodecallError, MAX_TIMER_DELAY_MS, assertEnvName } from "@codecall/core";
import { parseFingerprint, type HostKeyPolicy } from "./host-key-check.js";

export interface SshEnvironmentOptions {
  /** Host name or IP address of the SSH server. Required. */
  host: string;
  /** TCP port. Default: 22. */
  port?: number;
  /** Login name. Default: the local user's name. */
  username?: string;
  /** Private key contents (OpenSSH or PEM format). Give this or `privateKeyPath`. */
  privateKey?: string;
  /** Path of a private key file (`~/` expands to the home directory), read at each connect. */
  privateKeyPath?: string;
  /** Passphrase of an encrypted private key. */
  passphrase?: string;
  /** Authenticate with an SSH agent: `true` for the one in `$SSH_AUTH_SOCK`, or the agent's socket path. Default: off. */
  agent?: boolean | string;
  /** Password, for servers that allow password or keyboard-interactive logins. Prefer keys. */
  password?: string;
  /**
   * known_hosts file the host key must be listed in (plain or hashed entries, `[host]:port` for
   * ports other than 22). Default: `~/.ssh/known_hosts`, unless `hostKeyFingerprint` is given.
   */
  knownHostsPath?: string;
  /** Pin the host key instead: its fingerprint as `ssh-keygen -lf` prints it, `SHA256:...`. */
  hostKeyFingerprint?: string;
  /**
   * Accept any host key. Default: false. This opts out of the only protection against a
   * machine-in-the-middle; use it only for throwaway hosts on a trusted network.
   */
  insecureSkipHostKeyCheck?: boolean;
  /** Working directory of commands and base of relative file paths. Default: the login's home directory. */
  workdir?: string;
  /** Variables commands get on top of the login's own, and part of `defaultEnv()`. Default: none. */
  env?: Readonly<Record<string, string>>;
  /** How long connecting, the handshake and authentication may take, in ms. Default: 20000. */
  connectTimeoutMs?: number;
  /** Send a keepalive after this many ms of silence from the server; 0 disables. Default: 10000. */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection counts as lost. Default: 3. */
  keepaliveCountMax?: number;
  /**
   * Commands that may run at once on the connection; more wait for a free channel. Default: 8.
   * The connection also opens one channel for SFTP and keeps one free for kills, so keep this at
   * least 2 below the server's `MaxSessions` (10 on OpenSSH by default).
   */
  maxChannels?: number;
  /** Where `tempDir()` creates directories on the host. Default: `$TMPDIR`, else `/tmp`. */
  tempRoot?: string;
  /** Move files with SFTP; `false` moves them through exec (for servers without the sftp subsystem). Default: true. */
  sftp?: boolean;
}

/** Credentials; held only by the connection and never printed. */
export interface SshCredentials {
  privateKey?: string;
  privateKeyPath?: string;
  passphrase?: string;
  agent?: string;
  password?: string;
}

/** Validated options with defaults applied (credentials apart). */
export interface ResolvedSshOptions {
  host: string;
  port: number;
  username: string;
  credentials: SshCredentials;
  hostKeys: HostKeyPolicy;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  maxChannels: number;
  workdir: string | undefined;
  env: Readonly<Record<string, string>>;
  tempRoot: string | undefined;
  sftp: boolean;
}

const KNOWN_OPTIONS = new Set([
  "host",
  "port",
  "username",
  "privateKey",
  "privateKeyPath",
  "passphrase",
  "agent",
  "password",
  "knownHostsPath",
  "hostKeyFingerprint",
  "insecureSkipHostKeyCheck",
  "workdir",
  "env",
  "connectTimeoutMs",
  "keepaliveIntervalMs",
  "keepaliveCountMax",
  "maxChannels",
  "tempRoot",
  "sftp",
]);

/** Checks `input` and applies the defaults; throws `INVALID_OPTIONS` with a message that names the option. */
export function resolveSshOptions(input: SshEnvironmentOptions): ResolvedSshOptions {
  if (typeof input !== "object" || input === null) invalid("the options must be an object with at least `host`");
  const options = input as unknown as Record<string, unknown>;
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key) && options[key] !== undefined);
  if (unknown.length > 0) invalid(`unknown option${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; known: ${[...KNOWN_OPTIONS].join(", ")}`);

  const host = text(options, "host");
  if (!host) invalid("`host` is required");
  const credentials: SshCredentials = {};
  for (const key of ["privateKey", "privateKeyPath", "passphrase", "password"] as const) {
    const value = text(options, key);
    if (value !== undefined) credentials[key] = key === "privateKeyPath" ? expandHome(value) : value;
  }
  if (credentials.privateKey !== undefined && credentials.privateKeyPath !== undefined) invalid("give `privateKey` or `privateKeyPath`, not both");
  const agent = agentSocket(options.agent);
  if (agent !== undefined) credentials.agent = agent;
  if (!credentials.privateKey && !credentials.privateKeyPath && !credentials.agent && credentials.password === undefined) {
    invalid("no way to log in: give `privateKeyPath`, `privateKey`, `agent` or `password`");
  }

  return {
    host,
    port: integer(options, "port", 22, 1, 65_535),
    username: text(options, "username") ?? localUserName(),
    credentials,
    hostKeys: hostKeyPolicy(options),
    // ssh2 arms these with plain setTimeout/setInterval, which fire at once past 2^31-1 ms.
    connectTimeoutMs: integer(options, "connectTimeoutMs", 20_000, 1, MAX_TIMER_DELAY_MS),
    keepaliveIntervalMs: integer(options, "keepaliveIntervalMs", 10_000, 0, MAX_TIMER_DELAY_MS),
    keepaliveCountMax: integer(options, "keepaliveCountMax", 3, 1),
    maxChannels: integer(options, "maxChannels", 8, 1),
    workdir: text(options, "workdir"),
    env: environment(options.env),
    tempRoot: text(options, "tempRoot"),
    sftp: flag(options, "sftp") ?? true,
  };
}

function hostKeyPolicy(options: Record<string, unknown>): HostKeyPolicy {
  const knownHostsPath = text(options, "knownHostsPath");
  const fingerprint = text(options, "hostKeyFingerprint");
  const insecure = flag(options, "insecureSkipHostKeyCheck") ?? false;
  const chosen = [knownHostsPath !== undefined, fingerprint !== undefined, insecure].filter(Boolean).length;
  if (chosen > 1) invalid("give only one of `knownHostsPath`, `hostKeyFingerprint` and `insecureSkipHostKeyCheck`");
  if (insecure) return { kind: "insecure" };
  if (fingerprint !== undefined) return { kind: "fingerprint", fingerprint: parseFingerprint(fingerprint) };
  return { kind: "known-hosts", path: expandHome(knownHostsPath ?? "~/.ssh/known_hosts") };
}

function agentSocket(value: unknown): string | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) {
    const socket = process.env.SSH_AUTH_SOCK;
    if (!socket) invalid("`agent: true` needs $SSH_AUTH_SOCK, which is not set; give the agent's socket path instead");
    return socket;
  }
  if (typeof value === "string" && value !== "") return expandHome(value);
  return invalid("`agent` must be true or the path of the agent's socket");
}

function environment(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) invalid("`env` must be an object of variable names to values");
  const out: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    try {
      assertEnvName(name);
    } catch {
      invalid(`\`env\` holds an invalid variable name: ${JSON.stringify(name)}`);
    }
    if (typeof entry !== "string" && typeof entry !== "number" && typeof entry !== "boolean") invalid(`\`env.${name}\` must be a string`);
    out[name] = String(entry);
  }
  return out;
}

/** A string option; numbers and booleans are accepted as their text (the CLI types `-o` values). */
function text(options: Record<string, unknown>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return invalid(`\`${key}\` must be a string`);
}

function flag(options: Record<string, unknown>, key: string): boolean | undefined {
  const value = options[key];
  if (value === undefined || typeof value === "boolean") return value;
  return invalid(`\`${key}\` must be true or false`);
}

function integer(options: Record<string, unknown>, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = options[key];
  if (value === undefined) return fallback;
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    invalid(`\`${key}\` must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`);
  }
  return number as number;
}

function localUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return invalid("`username` is required: the local user has no name to default to");
  }
}

function expandHome(value: string): string {
  return value === "~" || value.startsWith("~/") ? path.join(homedir(), value.slice(1)) : value;
}

function invalid(message: string): never {
  throw new CodecallError("INVALID_OPTIONS", `ssh: ${message}`);
}
