// The real OpenSSH server the integration tests talk to, as provisioned by scripts/ci/sshd.sh:
// its coordinates come from CODECALL_SSH_* variables or the state dir's `env` file, and it must
// answer on its port, else the suites skip (or fail under CODECALL_REQUIRE_INTEGRATION=1).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { SshEnvironmentOptions } from "../../src/index.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Where scripts/ci/sshd.sh keeps its state (and the `env` file). */
const stateDir = process.env.CODECALL_SSHD_STATE ?? "/tmp/codecall-ci/sshd";

export interface SshServer {
  host: string;
  port: number;
  user: string;
  keyPath: string;
  knownHostsPath: string;
}

/** The provisioned server, or why there is none. */
export const sshd: { server?: SshServer; unavailableReason?: string } = await locateServer();

/** Options that log in to `server` with key and known_hosts. */
export function connectionOptions(server: SshServer = sshd.server!): SshEnvironmentOptions {
  return { host: server.host, port: server.port, username: server.user, privateKeyPath: server.keyPath, knownHostsPath: server.knownHostsPath };
}

async function locateServer(): Promise<{ server?: SshServer; unavailableReason?: string }> {
  const vars = { ...readEnvFile(path.join(stateDir, "env")), ...pick(process.env) };
  const missing = ["CODECALL_SSH_HOST", "CODECALL_SSH_PORT", "CODECALL_SSH_USER", "CODECALL_SSH_KEY", "CODECALL_SSH_KNOWN_HOSTS"].filter(
    (name) => !vars[name],
  );
  if (missing.length > 0) return { unavailableReason: `no SSH server configured (run scripts/ci/sshd.sh; missing ${missing.join(", ")})` };
  const server: SshServer = {
    host: vars.CODECALL_SSH_HOST!,
    port: Number(vars.CODECALL_SSH_PORT),
    user: vars.CODECALL_SSH_USER!,
    keyPath: vars.CODECALL_SSH_KEY!,
    knownHostsPath: vars.CODECALL_SSH_KNOWN_HOSTS!,
  };
  if (!(await portOpen(server.host, server.port)))
    return { unavailableReason: `nothing answers on ${server.host}:${server.port} (start it with scripts/ci/sshd.sh)` };
  return { server };
}

function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return {};
  }
  const vars: Record<string, string> = {};
  for (const match of text.matchAll(/^export (CODECALL_SSH_[A-Z_]+)=(.*)$/gm)) vars[match[1]!] = match[2]!;
  return vars;
}

function pick(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith("CODECALL_SSH_") && !!entry[1]));
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1_000 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/** Why a private sshd cannot be started here, if it cannot. */
export function privateServerUnavailable(): string | undefined {
  if (sshd.unavailableReason) return sshd.unavailableReason;
  if (process.getuid?.() !== 0) return "starting a private sshd needs root";
  return undefined;
}

/** A second sshd of our own (scripts/ci/sshd.sh on a free port and a temp state dir), for tests that kill the server. */
export async function startPrivateServer(): Promise<{ server: SshServer; pidFile: string; dispose: () => Promise<void> }> {
  const state = await mkdtemp(path.join(tmpdir(), "codecall-sshd-"));
  const port = await freePort();
  await promisify(execFile)("bash", [path.join(repoRoot, "scripts/ci/sshd.sh")], {
    env: { ...process.env, CODECALL_SSHD_STATE: state, CODECALL_SSH_PORT: String(port) },
    timeout: 120_000,
  });
  const vars = readEnvFile(path.join(state, "env"));
  const server: SshServer = {
    host: vars.CODECALL_SSH_HOST!,
    port,
    user: vars.CODECALL_SSH_USER!,
    keyPath: vars.CODECALL_SSH_KEY!,
    knownHostsPath: vars.CODECALL_SSH_KNOWN_HOSTS!,
  };
  const pidFile = path.join(state, "sshd.pid");
  return {
    server,
    pidFile,
    dispose: async () => {
      const pid = Number((await readFile(pidFile, "utf8").catch(() => "")).trim());
      if (pid > 0) killQuietly(pid);
      await rm(state, { recursive: true, force: true });
    },
  };
}

export function killQuietly(pid: number, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The processes of a running sshd: its listener, the per-connection sshd processes under it, and the rest under it (what the sessions run). */
export async function serverTree(pidFile: string): Promise<{ listener: number; sessions: number[]; commands: number[] }> {
  const listener = Number((await readFile(pidFile, "utf8")).trim());
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (match) {
      parents.set(Number(entry), Number(match[2]));
      names.set(Number(entry), match[1]!);
    }
  }
  const under = (pid: number): boolean => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) if (current === listener) return true;
    return false;
  };
  const tree = [...parents.keys()].filter(under);
  return {
    listener,
    sessions: tree.filter((pid) => names.get(pid)!.startsWith("sshd")),
    commands: tree.filter((pid) => !names.get(pid)!.startsWith("sshd")),
  };
}

/**
 * Kills a whole sshd like a crash would: the listener and every per-connection sshd process
 * under it, with SIGKILL. Returns the pids of the other processes under it (the commands the
 * sessions ran, now orphaned), so the caller can clean them up.
 */
export async function crashServer(pidFile: string): Promise<number[]> {
  const { listener, sessions, commands } = await serverTree(pidFile);
  for (const pid of [listener, ...sessions]) killQuietly(pid, "SIGKILL");
  return commands;
}
