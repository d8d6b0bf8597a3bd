/**
 * The options of the SSH backend, declared once: `createEnvironment()`, config files and the CLI's
 * `-o` pairs are all parsed by this declaration, and `codecall run --backend ssh --help` prints it.
 * Error messages name options, never values.
 */
import { homedir, userInfo } from "node:os";
import path from "node:path";
import { CodecallError } from "@codecall/core";
import { defineOptions, MAX_TIMER_DELAY_MS, type OptionsInput, type OptionValues } from "@codecall/core/backend-kit";
import { parseFingerprint, type HostKeyPolicy } from "./host-key-check.js";

/** The SSH backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("ssh", {
  host: { type: "string", required: true, description: "host name or IP" },
  port: { type: "integer", min: 1, max: 65_535, default: 22, description: "TCP port" },
  username: { type: "string", defaultText: "the local user", description: "login name" },
  privateKeyPath: { type: "string", description: "a private key file (`~/` expands; read at each connect)" },
  privateKey: { type: "string", secret: true, description: "the private key's contents (OpenSSH or PEM); give this or `privateKeyPath`" },
  passphrase: { type: "string", secret: true, description: "for an encrypted key" },
  agent: { type: "boolean|string", defaultText: "off", description: "`true` for `$SSH_AUTH_SOCK`, or the agent's socket path" },
  password: { type: "string", secret: true, description: "password and keyboard-interactive logins; prefer keys" },
  knownHostsPath: {
    type: "string",
    defaultText: "`~/.ssh/known_hosts`",
    description: "the host key must be listed here (plain or hashed entries, `[host]:port` for other ports)",
  },
  hostKeyFingerprint: { type: "string", description: "pin the key instead: `SHA256:...` as `ssh-keygen -lf` prints it" },
  /** This opts out of the only protection against a machine-in-the-middle; use it only for throwaway hosts on a trusted network. */
  insecureSkipHostKeyCheck: { type: "boolean", default: false, description: "explicit opt-out of host key verification" },
  workdir: { type: "string", defaultText: "login's home", description: "working directory of commands, base of relative file paths" },
  env: { type: "env", default: {}, description: "variables every command gets (not with `clearEnv`); part of `defaultEnv()`" },
  // ssh2 arms these with plain setTimeout/setInterval, which fire at once past 2^31-1 ms.
  connectTimeoutMs: { type: "integer", min: 1, max: MAX_TIMER_DELAY_MS, default: 20_000, description: "TCP connect + handshake + login" },
  keepaliveIntervalMs: {
    type: "integer",
    min: 0,
    max: MAX_TIMER_DELAY_MS,
    default: 10_000,
    description: "a keepalive after this much silence from the server; 0 disables",
  },
  keepaliveCountMax: {
    type: "integer",
    min: 1,
    default: 3,
    description: "unanswered keepalives before the connection counts as lost (about 30–40 s with the defaults)",
  },
  /**
   * The connection also opens one channel for SFTP and keeps one free for kills, so keep this at
   * least 2 below the server's `MaxSessions` (10 on OpenSSH by default).
   */
  maxChannels: { type: "integer", min: 1, default: 8, description: "commands running at once on the connection; more wait" },
  tempRoot: { type: "string", defaultText: "`$TMPDIR` or `/tmp`", description: "where `tempDir()` creates directories" },
  sftp: { type: "boolean", default: true, description: "`false` moves files through exec (servers without the sftp subsystem)" },
  /** `agent` is the ssh-agent's option, hence the longer name. Needs python3 on the host; without it commands run as plain execs. */
  environmentAgent: {
    type: "boolean",
    default: true,
    description: "run commands, files and the stream relay through one long-lived helper on the host (one channel in all); `false`: a channel each",
  },
});

/** The options of {@link createEnvironment}: `host` and one way to log in at least. */
export type SshEnvironmentOptions = OptionsInput<typeof environmentOptions.specs>;

/** Credentials; held only by the connection and never printed. */
export interface SshCredentials {
  privateKey?: string;
  privateKeyPath?: string;
  passphrase?: string;
  agent?: string;
  password?: string;
}

/** The options that choose how the host key is checked (resolved into `hostKeys`). */
type HostKeyOptionNames = "knownHostsPath" | "hostKeyFingerprint" | "insecureSkipHostKeyCheck";

/** Validated options with defaults applied, credentials and the host key policy apart. */
export type ResolvedSshOptions = Omit<OptionValues<typeof environmentOptions.specs>, keyof SshCredentials | HostKeyOptionNames | "username"> & {
  username: string;
  credentials: SshCredentials;
  hostKeys: HostKeyPolicy;
};

/** Parses `input` by the declaration, then the rules that concern two options at once; throws `INVALID_OPTIONS`. */
export function resolveSshOptions(input: SshEnvironmentOptions): ResolvedSshOptions {
  const {
    host,
    username,
    privateKey,
    privateKeyPath,
    passphrase,
    password,
    agent,
    knownHostsPath,
    hostKeyFingerprint,
    insecureSkipHostKeyCheck,
    ...settings
  } = environmentOptions.parse(input);
  const credentials: SshCredentials = {
    ...(privateKey === undefined ? {} : { privateKey }),
    ...(privateKeyPath === undefined ? {} : { privateKeyPath: expandHome(privateKeyPath) }),
    ...(passphrase === undefined ? {} : { passphrase }),
    ...(password === undefined ? {} : { password }),
  };
  if (privateKey !== undefined && privateKeyPath !== undefined) invalid("give `privateKey` or `privateKeyPath`, not both");
  const agentPath = agentSocket(agent);
  if (agentPath !== undefined) credentials.agent = agentPath;
  if (!credentials.privateKey && !credentials.privateKeyPath && !credentials.agent && credentials.password === undefined) {
    invalid("no way to log in: give `privateKeyPath`, `privateKey`, `agent` or `password`");
  }
  return {
    ...settings,
    host,
    username: username ?? localUserName(),
    credentials,
    hostKeys: hostKeyPolicy(knownHostsPath, hostKeyFingerprint, insecureSkipHostKeyCheck),
  };
}

function hostKeyPolicy(knownHostsPath: string | undefined, fingerprint: string | undefined, insecure: boolean): HostKeyPolicy {
  const chosen = [knownHostsPath !== undefined, fingerprint !== undefined, insecure].filter(Boolean).length;
  if (chosen > 1) invalid("give only one of `knownHostsPath`, `hostKeyFingerprint` and `insecureSkipHostKeyCheck`");
  if (insecure) return { kind: "insecure" };
  if (fingerprint !== undefined) return { kind: "fingerprint", fingerprint: parseFingerprint(fingerprint) };
  return { kind: "known-hosts", path: expandHome(knownHostsPath ?? "~/.ssh/known_hosts") };
}

function agentSocket(agent: boolean | string | undefined): string | undefined {
  if (agent === undefined || agent === false) return undefined;
  if (agent === true) {
    const socket = process.env.SSH_AUTH_SOCK;
    if (!socket) invalid("`agent: true` needs $SSH_AUTH_SOCK, which is not set; give the agent's socket path instead");
    return socket;
  }
  return expandHome(agent);
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
