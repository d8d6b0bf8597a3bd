/**
 * `terminal`: runs a shell command in the environment, in the foreground, and returns its output.
 *
 * stdout and stderr are merged in the order they were written (the command runs after
 * `exec 2>&1`, as in a terminal); anything the shell itself wrote to stderr before that is
 * appended. The output keeps the first 40 % and the last 60 % of the byte cap (50 KB by default)
 * with a notice in between, and has terminal escape sequences removed.
 */
import { groupDigits, stripAnsi } from "@codecall/core/plugin-kit";
import { checkPath, expandHome, throwIfAborted } from "./files.js";
import { resolveToolLimits, type BuiltinTool, type BuiltinToolsOptions } from "./options.js";

/** Arguments of `terminal`. */
export interface TerminalArgs {
  command: string;
  /** Seconds, 1..3600 (default 180). */
  timeout?: number;
  /** Working directory; relative ones resolve against the run's directory. */
  workdir?: string | null;
}

/** Result of `terminal`. */
export interface TerminalResult {
  /** stdout and stderr, interleaved, capped and ANSI-stripped. */
  output: string;
  /** The command's exit code; 124 when it timed out. */
  exit_code: number;
  timed_out: boolean;
  /** True when the output was cut to the byte cap. */
  truncated: boolean;
}

/** Default `timeout` of terminal, in seconds. */
export const TERMINAL_DEFAULT_TIMEOUT_S = 180;
/** Largest `timeout` terminal accepts, in seconds. */
export const TERMINAL_MAX_TIMEOUT_S = 3600;

/** Exit code reported for a command killed by its timeout (the convention of `timeout(1)`). */
export const TIMEOUT_EXIT_CODE = 124;

/** Creates the `terminal` tool with the given limits (see {@link BuiltinToolsOptions}). */
export function createTerminalTool(options: BuiltinToolsOptions = {}): BuiltinTool<TerminalArgs, TerminalResult> {
  const limits = resolveToolLimits(options);
  return {
    name: "terminal",
    description:
      "Run a shell command (POSIX sh) where this script runs, in the foreground, and wait for it. " +
      "stdout and stderr come back merged in one string, ANSI-stripped; output over " +
      `${groupDigits(limits.terminalMaxOutputBytes)} bytes keeps its start and end with a truncation notice. ` +
      "A non-zero exit code is returned, not raised. No background jobs or interactive programs: " +
      "stdin is empty, and the command is killed (with everything it started) when the timeout runs out.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, description: 'The shell command, e.g. "ls -la" or "pytest -x 2>&1 | tail -n 30".' },
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: TERMINAL_MAX_TIMEOUT_S,
          default: TERMINAL_DEFAULT_TIMEOUT_S,
          description: `Seconds before the command is killed (1-${TERMINAL_MAX_TIMEOUT_S}).`,
        },
        workdir: { type: "string", minLength: 1, description: "Directory to run in (default: the script's working directory)." },
      },
      required: ["command"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        output: { type: "string", description: "stdout and stderr, interleaved." },
        exit_code: { type: "integer", description: `The exit code; ${TIMEOUT_EXIT_CODE} after a timeout.` },
        timed_out: { type: "boolean", description: "The command was killed because the timeout ran out." },
        truncated: { type: "boolean", description: "The output was cut to the byte cap." },
      },
      required: ["output", "exit_code", "timed_out", "truncated"],
    },
    async execute(args, context) {
      const { command } = args;
      if (typeof command !== "string" || command.trim() === "") throw new TypeError("command must be a non-empty string");
      const timeout = args.timeout ?? TERMINAL_DEFAULT_TIMEOUT_S;
      if (!Number.isInteger(timeout) || timeout < 1 || timeout > TERMINAL_MAX_TIMEOUT_S) {
        throw new RangeError(`timeout must be a whole number of seconds from 1 to ${TERMINAL_MAX_TIMEOUT_S}, got ${String(timeout)}`);
      }
      const environment = context.environment;
      const workdir = args.workdir == null ? undefined : await expandHome(environment, checkPath(args.workdir, "workdir"));
      throwIfAborted(context.signal);

      const result = await environment.execute(`exec 2>&1; ${command}`, {
        ...(workdir === undefined ? {} : { cwd: workdir }),
        timeoutMs: timeout * 1000,
        maxOutputBytes: limits.terminalMaxOutputBytes,
        signal: context.signal,
      });
      // An interrupted run killed the command: its partial output is not a result.
      throwIfAborted(context.signal);

      let output = result.stdout;
      if (result.stderr !== "") output += (output === "" || output.endsWith("\n") ? "" : "\n") + result.stderr;
      output = stripAnsi(output);
      if (result.timedOut) {
        output += `${output === "" || output.endsWith("\n") ? "" : "\n"}[Command timed out after ${timeout} s and was killed]`;
      }
      return {
        output,
        exit_code: result.timedOut ? TIMEOUT_EXIT_CODE : result.exitCode,
        timed_out: result.timedOut,
        truncated: result.truncated === true,
      };
    },
  };
}

/** The `terminal` tool with default limits. */
export const terminalTool: BuiltinTool<TerminalArgs, TerminalResult> = /* @__PURE__ */ createTerminalTool();
