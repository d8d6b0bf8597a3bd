/**
 * `codecall run`: resolve the backend and transport, run the script, stream its output (or print
 * the result as JSON), and map the status to an exit code. Ctrl-C, SIGTERM and SIGHUP stop the run
 * cleanly (script killed, tool calls cancelled, environment closed) and exit 130, 143 or 129; a
 * second signal exits at once. A closed stdout (its reader gone) stops the run too, with 141.
 */
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  CodecallError,
  errorMessage,
  executeCode,
  loadBackend,
  readHostEnv,
  scrubEnv,
  type CodecallErrorCode,
  type Environment,
  type ExecuteCodeResult,
  type ModuleImporter,
} from "@codecall/core";
import { EXIT_CODES, SIGNAL_EXIT_CODES, USAGE_EXIT_CODE, UsageError, type StopSignal } from "./exit-codes.js";
import { runHelp } from "./backend-help.js";
import { backendOptionsFor } from "./backend-options.js";
import { approvalModeFor, type ApprovalMode } from "./approval-mode.js";
import { createModuleImporter } from "./module-loading.js";
import { openTelemetryRegistered } from "./open-telemetry.js";
import { watchOutputClosed, writesSettled } from "./output-closed.js";
import { TerminalOutput } from "./terminal-output.js";
import { createEventPrinter } from "./run-events.js";
import { parseRunArgs, type RunConfig, type RunHelpRequest, type ToolsConfig } from "./run-config.js";
import { runOptionsFrom, transportsFrom } from "./run-options.js";
import { loadTools } from "./tool-loading.js";

/** Where the command reads and writes; injectable for tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  cwd: string;
  /**
   * Registers the handler of the stop signals (Ctrl-C, SIGTERM, SIGHUP); returns its removal. A
   * caller that calls the handler without a signal means Ctrl-C.
   */
  onInterrupt: (handler: (signal: StopSignal) => void) => () => void;
  /** Ends the process now (second signal). */
  exit: (code: number) => void;
}

/** How long closing the environment (removing a container, ending an SSH session) may take. */
const CLOSE_TIMEOUT_MS = 30_000;

/** `codecall run ARGS`: the run, or its `--help`. */
export async function runFromArgs(args: string[], io: CliIO): Promise<number> {
  const request = await parseRunArgs(args, io.cwd);
  return "help" in request ? await printRunHelp(request, io) : await runCommand(request, io);
}

export async function runCommand(config: RunConfig, io: CliIO): Promise<number> {
  const code = await readScript(config.script, io);
  const importModule = createModuleImporter(io.cwd);
  const { tools, close: closeTools } = await loadTools(config, io, importModule);
  const environment = await createBackendEnvironment(config, importModule).catch(async (error: unknown) => {
    await closeTools();
    return explain(error);
  });
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  let finished = false;
  const terminal = new TerminalOutput(io.stdout, io.stderr);
  const stop = (signal: StopSignal) => {
    if (stoppedBy !== undefined) {
      // A second signal quits at once; a closed stdout is no one's request to hurry.
      if (signal !== "SIGPIPE") io.exit(SIGNAL_EXIT_CODES[signal]);
      return;
    }
    stoppedBy = signal;
    if (signal === "SIGPIPE") {
      terminal.line(`codecall: stdout was closed (its reader went away)${finished ? "; the output was not all delivered" : ": stopping the script"}`);
      controller.abort("stdout was closed");
      return;
    }
    const again = signal === "SIGINT" ? "Ctrl-C" : "the signal";
    // A line of its own also after the ^C the terminal echoed.
    terminal.own(`\ncodecall: ${signal === "SIGINT" ? "Ctrl-C" : signal}: interrupting the script (${again} again to quit at once)\n`);
    controller.abort(signal === "SIGINT" ? "interrupted by Ctrl-C" : `interrupted by ${signal}`);
  };
  // Held until the environment is closed: a signal during cleanup must not cut it short.
  const removeInterrupt = io.onInterrupt((signal = "SIGINT") => stop(signal));
  const removeClosedWatch = watchOutputClosed(io.stdout, () => stop("SIGPIPE"));
  let approvals: ApprovalMode | undefined;
  try {
    const transport = await transportsFrom(config, importModule, environment).catch(explain);
    const hostSecrets = hostSecretValues(config.envPassthrough);
    approvals = approvalModeFor({
      approveAll: config.approveAll,
      scriptFromStdin: config.script === "-",
      stdin: io.stdin,
      prompt: { write: (text) => terminal.own(text), asking: (open) => terminal.asking(open) },
      knownSecrets: hostSecrets,
    });
    const onEvent = createEventPrinter({
      terminal,
      json: config.json,
      verbose: config.verbose,
      knownSecrets: hostSecrets,
      deniedBecause: approvals.deniedBecause,
    });
    const result = await executeCode({
      code,
      // Tracebacks name the script as the user wrote it, not the run dir's copy.
      scriptName: config.script === "-" ? "<stdin>" : config.script,
      environment,
      transport,
      tools,
      ...runOptionsFrom(config),
      signal: controller.signal,
      // Spans only when a tracer provider may be registered: see open-telemetry.ts.
      ...(openTelemetryRegistered() ? {} : { telemetry: false }),
      onEvent,
      ...(approvals.onApproval ? { onApproval: approvals.onApproval } : {}),
    }).catch(explain);
    finished = true;
    terminal.end();
    report(result, config, io, terminal);
    await writesSettled(io.stdout);
    return stoppedBy === undefined ? EXIT_CODES[result.status] : SIGNAL_EXIT_CODES[stoppedBy];
  } finally {
    approvals?.close();
    await closeEnvironment(environment, io);
    await closeTools();
    removeClosedWatch();
    removeInterrupt();
  }
}

/** Loads the backend, reads the `-o` pairs by its declaration (if it has one) and creates the environment. */
export async function createBackendEnvironment(config: ToolsConfig, importModule: ModuleImporter): Promise<Environment> {
  const plugin = await loadBackend(config.backend, { importModule });
  return plugin.createEnvironment(backendOptionsFor(plugin, config.backendOptions, config.backendOptionPairs));
}

/** Prints `codecall run [--backend NAME] --help`: the usage and the backend's declared options. */
export async function printRunHelp(request: RunHelpRequest, io: CliIO): Promise<number> {
  const plugin = await loadBackend(request.backend, { importModule: createModuleImporter(io.cwd) }).catch(explain);
  io.stdout.write(runHelp(request.backend, plugin));
  return 0;
}

/** Closes the environment, bounded: a backend that hangs on close must not keep the CLI alive. */
export async function closeEnvironment(environment: Environment, io: CliIO): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = environment.close().then(
    () => true,
    (error: unknown) => {
      io.stderr.write(`codecall: closing the ${environment.backendId} environment failed: ${errorMessage(error)}\n`);
      return true;
    },
  );
  const done = await Promise.race([closed, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS)))]);
  clearTimeout(timer);
  if (!done) io.stderr.write(`codecall: the ${environment.backendId} environment did not close within ${CLOSE_TIMEOUT_MS / 1000}s; leaving it\n`);
}

async function readScript(script: string, io: CliIO): Promise<string> {
  if (script === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    return utf8Script(Buffer.concat(chunks), "The script on stdin");
  }
  const file = path.resolve(io.cwd, script);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `Script not found: ${file}` : `Cannot read the script ${file}: ${(error as Error).message}`);
  }
  return utf8Script(bytes, `The script ${file}`);
}

/**
 * The script's text. Scripts travel as UTF-8 text, so bytes that are not UTF-8 are refused:
 * decoded anyway they would become U+FFFD, and the script would run with other text than its file's.
 */
function utf8Script(bytes: Buffer, shown: string): string {
  if (!isUtf8(bytes)) {
    throw new UsageError(
      `${shown} is not UTF-8 text; codecall runs scripts as UTF-8. Convert it first, e.g. iconv -f latin1 -t utf-8 (and drop a coding: line that names another encoding).`,
    );
  }
  return bytes.toString("utf8");
}

function report(result: ExecuteCodeResult, config: RunConfig, io: CliIO, terminal: TerminalOutput): void {
  if (config.json) {
    const { status, output, exitCode, toolCallsMade, durationSeconds, error, ...rest } = result;
    io.stdout.write(
      `${JSON.stringify({ status, output, exitCode, toolCallsMade, durationSeconds, ...(error === undefined ? {} : { error }), ...rest }, null, 2)}\n`,
    );
    return;
  }
  // The output was streamed live; say how the run ended when it did not simply succeed.
  if (config.verbose) for (const skipped of result.transportsSkipped ?? []) terminal.line(`codecall: transport skipped — ${skipped}`);
  if (result.status === "success" && !config.verbose) return;
  const reason = result.error ? ` — ${result.error}` : "";
  terminal.line(
    `codecall: ${result.status}${reason} (${result.toolCallsMade} tool calls, ${result.durationSeconds}s, ${result.backend}/${result.transport})`,
  );
}

/** The values of the host's secret-looking variables (the CLI's own env), for masking progress lines and questions. */
export function hostSecretValues(passthrough: readonly string[]): string[] {
  return scrubEnv(readHostEnv(), { passthrough }).secretValues;
}

/**
 * Errors that mean the command line asks for something codecall cannot do as given: a name it
 * does not know, a plugin that is not installed, options a backend refuses, a transport that
 * cannot serve the backend. They exit with the usage code; other failures with 1.
 */
const COMMAND_LINE_ERRORS: ReadonlySet<CodecallErrorCode> = new Set([
  "UNKNOWN_BACKEND",
  "UNKNOWN_TRANSPORT",
  "PACKAGE_NOT_INSTALLED",
  "INVALID_OPTIONS",
  "NO_SUPPORTED_TRANSPORT",
]);

/** Turns codecall's own errors (missing package, unknown backend, ...) into plain CLI errors. */
export function explain(error: unknown): never {
  if (CodecallError.isInstance(error)) throw new UsageError(error.message, COMMAND_LINE_ERRORS.has(error.code) ? USAGE_EXIT_CODE : 1);
  throw error;
}
