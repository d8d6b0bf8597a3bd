/**
 * Commands for backends that reach their environment through an exec API (docker, ssh, cloud
 * sandboxes), which cannot signal a process tree, set a process group or keep secrets out of
 * argv by themselves. The wrapper gives every such backend the same cwd, env, timeout and kill
 * semantics as the local one; backends only carry its bytes.
 */
import { shellExports, shellQuote } from "../text/shell-quote.js";
import type { CommandOptions } from "../environment.js";
import killBody from "./kill-command.sh?raw";
import runBody from "./run-command.sh?raw";
import sweepFunction from "./sweep-tree.sh?raw";

// Both end escaped descendants the same way: the sweep function goes in front of each.
const runScript = `${sweepFunction}${runBody}`;
const killScript = `${sweepFunction}${killBody}`;

/** Exit code of the wrapper when it could not start the command (bad header, missing cwd). */
export const WRAPPER_FAILURE_EXIT_CODE = 125;

/** Grace the in-environment timeout gives between SIGTERM and SIGKILL, in seconds. */
const IN_ENVIRONMENT_GRACE_SECONDS = 2;

export interface RemoteCommandOptions extends Pick<CommandOptions, "cwd" | "env" | "clearEnv" | "timeoutMs"> {
  /**
   * Where the wrapper records the command's process group, so {@link remoteKillCommand} can end
   * it from a second exec. Omit it for commands nobody will need to kill.
   */
  pidFile?: string;
}

/** What a backend runs: `argv` (or `command`, its shell-quoted form) and the bytes to write first on stdin. */
export interface RemoteCommand {
  /** For exec APIs that take an argv array (docker). */
  argv: string[];
  /** The same as one shell command line (ssh). */
  command: string;
  /** Must be written to the process's stdin before anything else (then the caller's stdin, then EOF). */
  stdinPrefix: string;
}

/**
 * When the in-environment timeout fires for a command given `timeoutMs` (whole seconds, rounded
 * up, so never before the host's own timer would have).
 */
export function inEnvironmentTimeoutMs(timeoutMs: number): number {
  return wholeSeconds(timeoutMs) * 1000;
}

/** How coreutils `timeout` exits when it ended the command: 124 (SIGTERM took), 137 (the SIGKILL after the grace). */
export const IN_ENVIRONMENT_TIMEOUT_EXIT_CODES: readonly number[] = [124, 137];

/**
 * How long after its start the in-environment timeout has surely ended a command given
 * `timeoutMs`: the whole seconds `timeout` gets, plus its grace before SIGKILL. That timer needs
 * no new process to fire, so it holds where a kill exec cannot start (a fork bomb at the pids limit).
 */
export function inEnvironmentDeadlineMs(timeoutMs: number): number {
  return (wholeSeconds(timeoutMs) + IN_ENVIRONMENT_GRACE_SECONDS) * 1000;
}

/** Wraps `command` for a remote exec. */
export function remoteCommand(command: string, options: RemoteCommandOptions = {}): RemoteCommand {
  const settings: Record<string, string> = {
    CC_CWD: options.cwd ?? "",
    CC_CLEAR: options.clearEnv ? "1" : "",
    CC_EXPORTS: options.env ? shellExports(options.env) : "",
    // The host keeps the precise timer; this one only has to hold if the host goes away, so whole
    // seconds (which every `timeout` accepts) are enough.
    CC_TIMEOUT: options.timeoutMs === undefined ? "" : String(wholeSeconds(options.timeoutMs)),
    CC_GRACE: String(IN_ENVIRONMENT_GRACE_SECONDS),
    CC_CMD: command,
  };
  const header = Object.entries(settings)
    .map(([name, value]) => `${name}=${shellQuote(value)}`)
    .join("\n");
  const argv = ["sh", "-c", runScript, "codecall", ...(options.pidFile ? [options.pidFile] : [])];
  return { argv, command: argv.map(shellQuote).join(" "), stdinPrefix: `${base64(header)}\n` };
}

/** A command that ends the group recorded in `pidFile`: SIGTERM, SIGKILL after `graceMs` (at once for 0). */
export function remoteKillCommand(pidFile: string, graceMs = 0): { argv: string[]; command: string } {
  const argv = ["sh", "-c", killScript, "codecall", pidFile, String(Math.ceil(graceMs / 100))];
  return { argv, command: argv.map(shellQuote).join(" ") };
}

/** True when a wrapped command failed because its working directory does not exist. */
export function isMissingCwdFailure(exitCode: number, stderr: string): boolean {
  return exitCode === WRAPPER_FAILURE_EXIT_CODE && stderr.includes("codecall: no such working directory:");
}

function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}
