/**
 * `createCodeTool()`: a ready `execute_code` tool for an agent platform. Its description tells the
 * model which functions it can import (with signatures and return shapes) and the limits.
 */
import type { Environment } from "./environment.js";
import { executeCode } from "./execute/execute-code.js";
import type { ExecuteCodeOptions } from "./execute/execute-options.js";
import { resolveLimits, type ExecutionLimits } from "./execute/limits.js";
import { selectTools } from "./execute/prepare-run.js";
import type { ExecuteCodeResult } from "./execute/result.js";
import type { ToolCallEvent } from "./rpc/dispatcher.js";
import { assertModuleName } from "./guest/python-names.js";
import { DEFAULT_MODULE_NAME, describePythonSignatures } from "./guest/python-stub.js";
import type { JSONSchema } from "./schema/json-schema.js";
import { callSafely } from "./safe-callback.js";
import { assertRunPlugins } from "./specification.js";
import type { ToolDefinition } from "./tool.js";
import type { Transport } from "./transport.js";

export interface CodeToolOptions extends Omit<ExecuteCodeOptions, "code" | "signal" | "environment"> {
  /** The environment, or a function that provides one per call (e.g. a sandbox per session). */
  environment: Environment | (() => Environment | Promise<Environment>);
  /** Name the platform registers the tool under (default `execute_code`). */
  name?: string;
}

export interface CodeToolArgs {
  code: string;
}

/**
 * What one call of the tool may bring besides the code: the signal that interrupts it, and
 * observers of this run alone (an MCP request's progress, a UI's live view). The observers are
 * called besides those given to `createCodeTool`, with the same (redacted) chunks and events.
 */
export interface CodeToolCallContext {
  readonly signal?: AbortSignal;
  readonly onStdout?: (chunk: Uint8Array) => void;
  readonly onStderr?: (chunk: Uint8Array) => void;
  readonly onToolCall?: (event: ToolCallEvent) => void;
}

/**
 * The `execute_code` tool. It is a `ToolDefinition`, and its `execute` needs no more context than
 * an optional `signal`, so a platform can call it from its own tool adapter without inventing an
 * environment or a run id.
 */
export interface CodeTool extends ToolDefinition<CodeToolArgs, ExecuteCodeResult> {
  /** Runs the script; never throws for script failures (they are results). */
  execute(args: CodeToolArgs, context?: CodeToolCallContext): Promise<ExecuteCodeResult>;
}

/**
 * Builds the `execute_code` tool. Throws `INVALID_TOOL` / `INVALID_OPTIONS` at once for a tool set
 * or module name a script could not use (see {@link checkToolSet}); its `execute` never throws for
 * script failures.
 */
export function createCodeTool(options: CodeToolOptions): CodeTool {
  const transports: readonly Transport[] = Array.isArray(options.transport) ? options.transport : [options.transport as Transport];
  assertRunPlugins(typeof options.environment === "function" ? undefined : options.environment, transports);
  const tools = selectTools(options.tools ?? [], options.allowedTools);
  const limits = resolveLimits(options.limits);
  const moduleName = options.moduleName ?? DEFAULT_MODULE_NAME;
  assertModuleName(moduleName);
  const parameters: JSONSchema = {
    type: "object",
    properties: {
      code: {
        type: "string",
        description: `Python 3 source to run. Import tools with \`from ${moduleName} import ...\` and print your final result to stdout.`,
      },
    },
    required: ["code"],
    additionalProperties: false,
  };
  return {
    name: options.name ?? "execute_code",
    description: describeCodeTool(tools, limits, moduleName),
    parameters,
    async execute(args, context = {}) {
      const environment = typeof options.environment === "function" ? await options.environment() : options.environment;
      return executeCode({
        ...options,
        environment,
        tools,
        allowedTools: undefined,
        code: args.code,
        signal: context.signal,
        onStdout: both(options.onStdout, context.onStdout),
        onStderr: both(options.onStderr, context.onStderr),
        onToolCall: both(options.onToolCall, context.onToolCall),
      });
    },
  };
}

/** One observer that calls the tool's and the call's own (either may be absent); one's throw does not keep the other from its turn. */
function both<T>(first: ((value: T) => void) | undefined, second: ((value: T) => void) | undefined): ((value: T) => void) | undefined {
  if (!first || !second) return first ?? second;
  return (value) => {
    callSafely(first, value);
    callSafely(second, value);
  };
}

/** The description the model reads. */
export function describeCodeTool(tools: readonly ToolDefinition[], limits: ExecutionLimits, moduleName = DEFAULT_MODULE_NAME): string {
  const lines = [
    "Run a Python 3 script that can call tools as Python functions. Only what the script prints comes back to you,",
    "so use it to chain many tool calls, loop, filter and aggregate without passing intermediate results through the conversation.",
    "",
  ];
  if (tools.length === 0) {
    lines.push("No tools are available in this environment; the script runs plain Python.");
  } else {
    const example = tools
      .slice(0, 2)
      .map((tool) => tool.name)
      .join(", ");
    lines.push(`Import the tools with \`from ${moduleName} import ${example}${tools.length > 2 ? ", ..." : ""}\`. Available:`);
    for (const signature of describePythonSignatures(tools)) lines.push(`  ${signature}`);
    lines.push(
      "",
      `A failed call raises ${moduleName}.ToolError. Calls are thread-safe and run concurrently (threads, or the \`_async\` variant of`,
      "each function with asyncio.gather), so fan out independent calls.",
    );
  }
  lines.push(
    "",
    `Limits: ${formatDuration(limits.timeoutMs)} timeout, ${formatBytes(limits.maxStdoutBytes)} stdout cap (head and tail kept), ` +
      `max ${limits.maxToolCalls} tool calls per script.` +
      (tools.some((tool) => tool.name === "terminal") ? " terminal() is foreground-only (no background processes)." : ""),
  );
  return lines.join("\n");
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}-minute`;
  return `${Math.round(ms / 1000)}-second`;
}

function formatBytes(bytes: number): string {
  return bytes >= 1000 ? `${Math.round(bytes / 1000)} KB` : `${bytes} bytes`;
}
