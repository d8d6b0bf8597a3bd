/**
 * `codecall repl`: Python cells typed (or piped) one after another into one session, so that
 * imports and variables survive from cell to cell, with the tools, backend and transport chosen as
 * for `codecall run`. Lines become cells as `CellReader` says; `:reset` starts a fresh session,
 * `:quit` (or the end of input) ends it. Each cell's output is streamed as it comes; a cell that
 * does not succeed gets one line on stderr saying how it ended, and a lost state is reported.
 *
 * Ctrl-C interrupts the running cell (the session keeps its state when the kernel answers); with
 * no cell running it drops the half-typed one, and a second Ctrl-C in a row quits. Calls that
 * need approval are denied unless `--approve-all`: stdin carries the cells, not answers.
 */
import { createInterface } from "node:readline";
import { createCodeSession, type CodeSession, type CodeSessionResult } from "@codecall/core";
import { REPL_HELP, REPL_COMMANDS_HELP } from "./command-help.js";
import { SIGNAL_EXIT_CODES, USAGE_EXIT_CODE, UsageError, type StopSignal } from "./exit-codes.js";
import { createModuleImporter } from "./module-loading.js";
import { watchOutputClosed } from "./output-closed.js";
import { CellReader } from "./repl-cells.js";
import { TerminalOutput } from "./terminal-output.js";
import { parseToolsArgs } from "./run-config.js";
import { closeEnvironment, createBackendEnvironment, explain, hostSecretValues, type CliIO } from "./run-command.js";
import { createEventPrinter } from "./run-events.js";
import { runOptionsFrom, transportsFrom } from "./run-options.js";
import { loadTools } from "./tool-loading.js";

export async function replCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = await parseToolsArgs("repl", args, io.cwd);
  if ("help" in parsed) {
    io.stdout.write(REPL_HELP);
    return 0;
  }
  const { config, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`codecall repl takes no arguments, got ${positionals.join(" ")}`, USAGE_EXIT_CODE);
  const importModule = createModuleImporter(io.cwd);
  const { tools, close: closeTools } = await loadTools(config, io, importModule);
  const environment = await createBackendEnvironment(config, importModule).catch(async (error: unknown) => {
    await closeTools();
    return explain(error);
  });
  const terminal = (io.stdin as { isTTY?: boolean }).isTTY === true;
  let session: CodeSession | undefined;
  let running: AbortController | undefined;
  const lines = createInterface({ input: io.stdin, ...(terminal ? { output: io.stdout, terminal: true } : {}) });
  // Taken at once: readline's iterator keeps only the lines that arrive after it exists, and piped
  // input arrives while the backend starts.
  const input = lines[Symbol.asyncIterator]();
  const reader = new CellReader();
  let stoppedBy: StopSignal | undefined;
  let interruptedIdle = false;
  const prompt = () => {
    if (!terminal) return;
    lines.setPrompt(reader.open ? "... " : ">>> ");
    lines.prompt();
  };
  const interrupt = (signal: StopSignal = "SIGINT") => {
    if (stoppedBy !== undefined) {
      // A second signal quits at once; a closed stdout is no one's request to hurry.
      if (signal !== "SIGPIPE") io.exit(SIGNAL_EXIT_CODES[signal]);
      return;
    }
    if (signal === "SIGINT" && running !== undefined) {
      running.abort("interrupted by Ctrl-C");
      return;
    }
    if (signal === "SIGINT" && terminal && !interruptedIdle) {
      // Ctrl-C at the prompt: drop the half-typed cell; a second one in a row quits.
      interruptedIdle = true;
      reader.clear();
      io.stderr.write("\n(Ctrl-C again or :quit to leave)\n");
      prompt();
      return;
    }
    running?.abort(signal === "SIGPIPE" ? "stdout was closed" : `interrupted by ${signal}`);
    stoppedBy = signal;
    lines.close();
  };
  const removeInterrupt = io.onInterrupt(interrupt);
  // Nobody reads the cells' output any more: end the session as SIGPIPE would.
  const output = new TerminalOutput(io.stdout, io.stderr);
  const removeClosedWatch = watchOutputClosed(io.stdout, () => {
    output.line("codecall: stdout was closed (its reader went away): ending the session");
    interrupt("SIGPIPE");
  });
  // On a terminal readline turns Ctrl-C into its own event instead of the process's signal.
  lines.on("SIGINT", () => interrupt("SIGINT"));
  try {
    const transport = await transportsFrom(config, importModule, environment).catch(explain);
    const hostSecrets = hostSecretValues(config.envPassthrough);
    const deniedBecause = "codecall repl reads its cells from stdin, so no answer can be read there";
    session = createCodeSession({
      environment,
      transport,
      tools,
      ...runOptionsFrom(config),
      onEvent: createEventPrinter({ terminal: output, json: config.json, verbose: config.verbose, knownSecrets: hostSecrets, deniedBecause }),
      ...(config.approveAll ? { onApproval: () => "approve" as const } : {}),
    });
    if (terminal) io.stderr.write(`codecall repl (${environment.backendId}; ${tools.length} tools). :help for the commands, :quit to leave.\n`);
    const runCell = async (code: string) => {
      running = new AbortController();
      try {
        const result = await session!.run(code, { signal: running.signal });
        output.end();
        report(result, config.json, io, output);
      } finally {
        running = undefined;
      }
    };
    prompt();
    for (let line = await input.next(); line.done !== true; line = await input.next()) {
      interruptedIdle = false;
      const read = reader.push(line.value);
      if (read.kind === "cell") await runCell(read.code);
      else if (read.kind === "refused") output.line(`codecall: ${read.reason}`);
      else if (read.kind === "command") {
        if (read.name === "quit" || read.name === "exit" || read.name === "q") break;
        if (read.name === "reset") {
          await session.reset();
          io.stderr.write("codecall: the session was reset: the next cell starts fresh\n");
        } else if (read.name === "help") io.stdout.write(REPL_COMMANDS_HELP);
        else io.stderr.write(`codecall: unknown command :${read.name} (:help lists them)\n`);
      }
      prompt();
    }
    const last = stoppedBy === undefined ? reader.end() : undefined;
    if (last?.kind === "cell") await runCell(last.code);
    else if (last?.kind === "refused") output.line(`codecall: ${last.reason}`);
    return stoppedBy === undefined ? 0 : SIGNAL_EXIT_CODES[stoppedBy];
  } finally {
    lines.close();
    await session?.close();
    await closeEnvironment(environment, io);
    await closeTools();
    removeClosedWatch();
    removeInterrupt();
  }
}

/** Says how a cell ended when it did not simply succeed (its output was streamed), or prints it as JSON. */
function report(result: CodeSessionResult, json: boolean, io: CliIO, output: TerminalOutput): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (result.state === "lost") output.line(`codecall: [cell ${result.cell}] the session's state was lost: ${result.stateNote ?? "the kernel ended"}`);
  if (result.status === "success") return;
  const hint = /\nHint: (.*)$/.exec(result.output)?.[1];
  output.line(`codecall: [cell ${result.cell}] ${result.status}${result.error ? ` — ${result.error}` : ""}`);
  if (hint !== undefined) output.line(`codecall: hint: ${hint}`);
}
