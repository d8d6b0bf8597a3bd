/**
 * `codecall mcp serve`: execute_code as an MCP server, over stdio (the client starts this command)
 * or Streamable HTTP (`--http PORT`). The tools, the backend and the transport are chosen as for
 * `codecall run`; one environment serves every call and is closed when the server ends: at the
 * end of stdin, or on SIGINT, SIGTERM or SIGHUP (runs in progress are interrupted first). Calls
 * that need approval (`--require-approval`, or a tool's own `needsApproval`) are asked of the MCP
 * client through elicitation when it supports it, else denied; `--approve-all` approves them.
 */
import { createCodeTool, type ExecuteCodeResult, type ToolDefinition } from "@codecall/core";
import { MCP_HELP, MCP_SERVE_HELP } from "./command-help.js";
import { SIGNAL_EXIT_CODES, USAGE_EXIT_CODE, UsageError, type StopSignal } from "./exit-codes.js";
import { createModuleImporter } from "./module-loading.js";
import { parseToolsArgs } from "./run-config.js";
import { closeEnvironment, createBackendEnvironment, explain, hostSecretValues, type CliIO } from "./run-command.js";
import { createEventPrinter } from "./run-events.js";
import { TerminalOutput } from "./terminal-output.js";
import { runOptionsFrom, transportsFrom } from "./run-options.js";
import { sessionFlagsFrom, SESSION_FLAGS } from "./session-flags.js";
import { loadTools } from "./tool-loading.js";

const SERVE_FLAGS = { http: { type: "string" }, host: { type: "string" }, ...SESSION_FLAGS } as const;

export async function mcpCommand(args: string[], io: CliIO): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === "--help" || subcommand === "-h") {
    io.stdout.write(MCP_HELP);
    return subcommand === undefined ? USAGE_EXIT_CODE : 0;
  }
  if (subcommand !== "serve") throw new UsageError(`Unknown command "mcp ${subcommand}". Run \`codecall mcp --help\`.`, USAGE_EXIT_CODE);
  return serve(rest, io);
}

async function serve(args: string[], io: CliIO): Promise<number> {
  const parsed = await parseToolsArgs("mcp serve", args, io.cwd, SERVE_FLAGS);
  if ("help" in parsed) {
    io.stdout.write(MCP_SERVE_HELP);
    return 0;
  }
  const { config, values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`codecall mcp serve takes no arguments, got ${positionals.join(" ")}`, USAGE_EXIT_CODE);
  const port = values.http === undefined ? undefined : portNumber(values.http as string);
  if (values.host !== undefined && port === undefined) throw new UsageError("--host goes with --http PORT", USAGE_EXIT_CODE);
  const session = sessionFlagsFrom(values);
  // Over stdio, stdout is the protocol: whatever a tools module logs goes to stderr instead.
  if (port === undefined) console.log = console.info = console.debug = console.error;

  const importModule = createModuleImporter(io.cwd);
  const { tools, close: closeTools } = await loadTools(config, io, importModule);
  const { serveHttp, serveStdio } = await import("@codecall/mcp");
  const environment = await createBackendEnvironment(config, importModule).catch(async (error: unknown) => {
    await closeTools();
    return explain(error);
  });
  let stoppedBy: StopSignal | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const removeInterrupt = io.onInterrupt((signal = "SIGINT") => {
    if (stoppedBy !== undefined) io.exit(SIGNAL_EXIT_CODES[signal]);
    stoppedBy = signal;
    io.stderr.write(`codecall: ${signal}: stopping the MCP server (again to quit at once)\n`);
    stop();
  });
  try {
    const transport = await transportsFrom(config, importModule, environment).catch(explain);
    const hostSecrets = hostSecretValues(config.envPassthrough);
    const onResult = (result: ExecuteCodeResult) => io.stderr.write(describeRun(result));
    const codeTool = createCodeTool({
      environment,
      transport,
      tools,
      ...runOptionsFrom(config),
      ...(session ? { session } : {}),
      // With --approve-all the server approves; otherwise each client is asked (elicitation), or nobody.
      ...(config.approveAll ? { onApproval: () => "approve" as const } : {}),
      // Stdout is the protocol (over stdio): only stderr lines, as `json` keeps them.
      onEvent: createEventPrinter({
        terminal: new TerminalOutput(io.stdout, io.stderr),
        json: true,
        verbose: config.verbose,
        knownSecrets: hostSecrets,
        deniedBecause: "the MCP client cannot be asked (it does not support elicitation)",
      }),
    });
    const serverOptions = { onResult, elicitApprovals: !config.approveAll, knownSecrets: hostSecrets };
    const serving = `(${environment.backendId}; ${tools.length} tools${describeApprovals(tools, config.approveAll)})`;
    if (port === undefined) {
      const stdio = await serveStdio(codeTool, { stdin: io.stdin as NodeJS.ReadStream, stdout: io.stdout as NodeJS.WriteStream, ...serverOptions });
      io.stderr.write(`codecall: serving execute_code over stdio ${serving}\n`);
      await Promise.race([stdio.closed, stopped]);
      await stdio.close();
    } else {
      const http = await serveHttp(codeTool, { port, ...(values.host ? { host: values.host as string } : {}), ...serverOptions });
      io.stderr.write(`codecall: serving execute_code at ${http.url} ${serving}\n`);
      await stopped;
      await http.close();
    }
    // Each connection's session ended with it; this ends any left (a connection still closing).
    await codeTool.close();
    return stoppedBy === undefined ? 0 : SIGNAL_EXIT_CODES[stoppedBy];
  } finally {
    await closeEnvironment(environment, io);
    await closeTools();
    removeInterrupt();
  }
}

/** What happens to calls that need approval, for the start-up line (nothing when no tool needs any). */
function describeApprovals(tools: readonly ToolDefinition[], approveAll: boolean): string {
  if (!tools.some((tool) => tool.needsApproval !== undefined && tool.needsApproval !== false)) return "";
  return approveAll ? "; calls needing approval are approved (--approve-all)" : "; calls needing approval are asked of the client, or denied";
}

/** One log line per run, for the server's operator. */
function describeRun(result: ExecuteCodeResult): string {
  const reason = result.error ? ` — ${result.error}` : "";
  return `codecall: execute_code ${result.status}${reason} (${result.toolCallsMade} tool calls, ${result.durationSeconds}s)\n`;
}

function portNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`--http wants a port number from 0 to 65535, got ${text}`, USAGE_EXIT_CODE);
  return port;
}
