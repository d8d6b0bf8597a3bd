/**
 * `codecall run`: resolve the backend and transport, run the script, stream its output (or print
 * the result as JSON), and map the status to an exit code. Ctrl-C interrupts cleanly; a second
 * Ctrl-C exits at once.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  checkToolSet,
  CodecallError,
  executeCode,
  resolveEnvironment,
  resolveTransports,
  type ExecuteCodeResult,
  type ToolCallEvent,
  type ToolDefinition,
} from "@codecall/core";
import { builtinTools } from "@codecall/tools";
import { EXIT_CODES, UsageError } from "./exit-codes.js";
import { createModuleImporter, loadToolModule } from "./module-loading.js";
import type { RunConfig } from "./run-config.js";

/** Where the command reads and writes; injectable for tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  cwd: string;
  /** Registers a Ctrl-C handler; returns its removal. */
  onInterrupt: (handler: () => void) => () => void;
  /** Ends the process now (second Ctrl-C). */
  exit: (code: number) => void;
}

export async function runCommand(config: RunConfig, io: CliIO): Promise<number> {
  const code = await readScript(config.script, io);
  const importModule = createModuleImporter(io.cwd);
  const tools: ToolDefinition[] = config.builtinTools ? [...builtinTools] : [];
  for (const specifier of config.toolModules) tools.push(...(await loadToolModule(specifier, io.cwd, importModule)));
  // Refused here, before a backend starts: a name Python cannot import or a schema that cannot be
  // enforced is a mistake in the tools module, not something a run can report.
  try {
    checkToolSet(tools);
  } catch (error) {
    explain(error);
  }

  const environment = await resolveEnvironment({ backend: config.backend, options: config.backendOptions }, { importModule }).catch(explain);
  const controller = new AbortController();
  let interrupts = 0;
  const removeInterrupt = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) io.exit(EXIT_CODES.interrupted);
    io.stderr.write("\ncodecall: interrupting the script (Ctrl-C again to quit at once)\n");
    controller.abort("interrupted by Ctrl-C");
  });
  try {
    // "stream,file": candidates in order of preference, as executeCode takes them.
    const transports = config.transport.split(",").map((name) => name.trim()).filter(Boolean);
    const transport = await resolveTransports(transports, { importModule }).catch(explain);
    const result = await executeCode({
      code,
      environment,
      transport,
      tools,
      ...(config.allowTools ? { allowedTools: config.allowTools } : {}),
      limits: {
        ...(config.timeoutSeconds === undefined ? {} : { timeoutMs: Math.round(config.timeoutSeconds * 1000) }),
        ...(config.maxToolCalls === undefined ? {} : { maxToolCalls: config.maxToolCalls }),
      },
      env: { passthrough: config.envPassthrough },
      ...(config.cwd ? { cwd: config.cwd } : {}),
      ...(config.interpreter ? { interpreter: config.interpreter } : {}),
      signal: controller.signal,
      ...(config.json ? {} : { onStdout: (chunk: Uint8Array) => io.stdout.write(chunk), onStderr: (chunk: Uint8Array) => io.stderr.write(chunk) }),
      ...(config.verbose ? { onToolCall: (event: ToolCallEvent) => io.stderr.write(describeToolCall(event)) } : {}),
    }).catch(explain);
    report(result, config, io);
    return EXIT_CODES[result.status];
  } finally {
    removeInterrupt();
    await environment.close();
  }
}

async function readScript(script: string, io: CliIO): Promise<string> {
  if (script === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString("utf8");
  }
  const file = path.resolve(io.cwd, script);
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `Script not found: ${file}` : `Cannot read the script ${file}: ${(error as Error).message}`);
  }
}

function report(result: ExecuteCodeResult, config: RunConfig, io: CliIO): void {
  if (config.json) {
    const { status, output, exitCode, toolCallsMade, durationSeconds, error, ...rest } = result;
    io.stdout.write(`${JSON.stringify({ status, output, exitCode, toolCallsMade, durationSeconds, ...(error === undefined ? {} : { error }), ...rest }, null, 2)}\n`);
    return;
  }
  // The output was streamed live; say how the run ended when it did not simply succeed.
  if (config.verbose) for (const skipped of result.transportsSkipped ?? []) io.stderr.write(`codecall: transport skipped — ${skipped}\n`);
  if (result.status === "success" && !config.verbose) return;
  const reason = result.error ? ` — ${result.error}` : "";
  io.stderr.write(`codecall: ${result.status}${reason} (${result.toolCallsMade} tool calls, ${result.durationSeconds}s, ${result.backend}/${result.transport})\n`);
}

function describeToolCall(event: ToolCallEvent): string {
  if (event.phase === "start") {
    const args = JSON.stringify(event.arguments);
    return `codecall: → ${event.name} ${args.length > 120 ? `${args.slice(0, 117)}...` : args}\n`;
  }
  const outcome = event.ok ? "ok" : `failed: ${event.error}`;
  return `codecall: ← ${event.name} ${outcome} (${(event.durationMs / 1000).toFixed(2)}s)\n`;
}

/** Turns codecall's own errors (missing package, unknown backend, ...) into plain CLI errors. */
function explain(error: unknown): never {
  if (CodecallError.isInstance(error)) throw new UsageError(error.message);
  throw error;
}
