/**
 * `createCodeTool()`: a ready `execute_code` tool for an agent platform. Its description tells the
 * model which functions it can import (with signatures and return shapes) and the limits.
 */
import type { ApprovalHandler } from "./approval.js";
import type { Environment } from "./environment.js";
import type { RunEvent } from "./events.js";
import { executeCode } from "./execute/execute-code.js";
import type { ExecuteCodeOptions } from "./execute/execute-options.js";
import { resolveLimits, type ExecutionLimits } from "./execute/limits.js";
import { selectTools } from "./execute/prepare-run.js";
import type { ExecuteCodeResult } from "./execute/result.js";
import { assertModuleName } from "./guest/python-names.js";
import { DEFAULT_MODULE_NAME, describePythonSignatures } from "./guest/python-stub.js";
import { callEachHolding } from "./safe-callback.js";
import type { JSONSchema } from "./schema/json-schema.js";
import { assertRunPlugins } from "./specification.js";
import { SessionCells, type CodeToolSessionOptions } from "./session-pool/code-tool-sessions.js";
import { describeIdleTime } from "./session-pool/session-pool.js";
import type { CodeSessionResult } from "./session/session-options.js";
import type { ToolDefinition } from "./tool.js";
import type { Transport } from "./transport.js";

export interface CodeToolOptions extends Omit<ExecuteCodeOptions, "code" | "signal" | "environment"> {
  /** The environment, or a function that provides one per call (e.g. a sandbox per session). */
  environment: Environment | (() => Environment | Promise<Environment>);
  /** Name the platform registers the tool under (default `execute_code`). */
  name?: string;
  /**
   * Whether the description says that calls needing approval can be approved. Default: whether
   * `onApproval` is given; set it when approvals come per call instead (see {@link CodeToolCallContext}).
   */
  canApprove?: boolean;
  /**
   * Keep state between calls: each conversation gets a Python session (see `createCodeSession`)
   * whose variables, imports and open files the next call finds again; the description says so
   * and the tool takes a `reset` argument. A call names its conversation with `conversationKey`
   * (see {@link CodeToolCallContext}); calls that name none share one session. Sessions end after
   * `idleMs` without a call (default 15 minutes), at most `maxSessions` live at once (default 16;
   * the one idle the longest ends first), and `close()` ends them. `true`: the defaults.
   */
  session?: CodeToolSessionOptions | true;
}

export interface CodeToolArgs {
  code: string;
  /** With `session`: start the conversation's session afresh before running `code`. */
  reset?: boolean;
}

/** A call's result: with `session`, also the cell's number and what became of the state. */
export type CodeToolResult = ExecuteCodeResult & Partial<Pick<CodeSessionResult, "cell" | "state" | "stateNote">>;

/**
 * What one call of the `execute_code` tool may add: its abort signal, and — for a platform that
 * serves several conversations with one tool (an MCP server asking each request's client) — this
 * call's approver and event listener.
 */
export interface CodeToolCallContext {
  readonly signal?: AbortSignal;
  /** Decides this call's approvals instead of the tool's `onApproval`. */
  readonly onApproval?: ApprovalHandler;
  /**
   * Gets this call's events, after the tool's own `onEvent`. A promise it returns for an output
   * event holds the script's output until it settles (see `ExecuteCodeOptions.onStdout`).
   */
  readonly onEvent?: (event: RunEvent) => unknown;
  /**
   * With `session`: the conversation this call belongs to (a chat's id, an MCP session's id).
   * Calls with the same key share one Python session; calls without one share the default session.
   */
  readonly conversationKey?: string;
}

/**
 * The `execute_code` tool. It is a `ToolDefinition`, and its `execute` needs no more context than
 * an optional `signal`, so a platform can call it from its own tool adapter without inventing an
 * environment or a run id.
 */
export interface CodeTool extends ToolDefinition<CodeToolArgs, CodeToolResult>, AsyncDisposable {
  /**
   * Runs the script (with `session`, as a cell of the call's conversation); never throws for
   * script failures (they are results). With `session` it throws `SESSION_LIMIT` when a new
   * conversation finds every session running a cell, and `SESSION_CLOSED` after `close()`.
   */
  execute(args: CodeToolArgs, context?: CodeToolCallContext): Promise<CodeToolResult>;
  /** Whether calls keep state in a session per conversation (the `session` option). */
  readonly keepsState: boolean;
  /** With `session`: ends one conversation's session (say, when its MCP session closes). */
  endConversation(conversationKey: string): Promise<void>;
  /** Ends the sessions of the tool's own pool (not of a pool it was given); nothing without `session`. */
  close(): Promise<void>;
  /** Whether `description` says that calls needing approval can be approved (`canApprove`, else whether `onApproval` is given). */
  readonly canApprove: boolean;
  /**
   * The description as it reads when approvals can (or cannot) be given: for a platform that
   * learns per connection whether someone can approve, such as an MCP server whose client may or
   * may not support elicitation. Same tools, limits and module name as `description`.
   */
  describe(options: DescribeCodeToolOptions): string;
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
  const { session: sessionOption, name, canApprove: _canApprove, ...runOptions } = options;
  const cells =
    sessionOption === undefined
      ? undefined
      : new SessionCells({ ...runOptions, tools, limits, moduleName, allowedTools: undefined }, sessionOption === true ? {} : sessionOption);
  const parameters: JSONSchema = {
    type: "object",
    properties: {
      code: {
        type: "string",
        description: `Python 3 source to run. Import tools with \`from ${moduleName} import ...\` and print your final result to stdout.`,
      },
      ...(cells
        ? { reset: { type: "boolean", description: "Start from a fresh Python session (drop all earlier state) before running code." } }
        : {}),
    },
    required: ["code"],
    additionalProperties: false,
  };
  const canApprove = options.canApprove ?? options.onApproval !== undefined;
  const session = cells ? { idleMs: cells.pool.idleMs } : undefined;
  const describe = (describeOptions: DescribeCodeToolOptions) =>
    describeCodeTool(tools, limits, moduleName, { ...(session ? { session } : {}), ...describeOptions });
  const close = async () => {
    if (cells?.ownsPool) await cells.pool.close();
  };
  return {
    name: name ?? "execute_code",
    description: describe({ canApprove }),
    canApprove,
    describe,
    parameters,
    keepsState: cells !== undefined,
    async endConversation(conversationKey) {
      await cells?.pool.end(conversationKey);
    },
    close,
    [Symbol.asyncDispose]: close,
    async execute(args, context = {}) {
      const onApproval = context.onApproval ?? options.onApproval;
      const listeners = [options.onEvent, context.onEvent].filter((listener) => listener !== undefined);
      if (cells) {
        return cells.run(args.code, {
          conversationKey: context.conversationKey,
          reset: args.reset === true,
          signal: context.signal,
          onApproval,
          listeners,
        });
      }
      const environment = typeof options.environment === "function" ? await options.environment() : options.environment;
      return executeCode({
        ...options,
        environment,
        tools,
        allowedTools: undefined,
        code: args.code,
        signal: context.signal,
        ...(onApproval ? { onApproval } : {}),
        ...(listeners.length > 0 ? { onEvent: (event: RunEvent) => callEachHolding(listeners, event) } : {}),
      });
    },
  };
}

/** What the description says beyond the tools and limits. */
export interface DescribeCodeToolOptions {
  /**
   * Whether calls that need approval can be approved in these runs (an `onApproval` is given).
   * Default false: the description then says such calls are always denied, as they are.
   */
  canApprove?: boolean;
  /**
   * The tool keeps a session per conversation (`createCodeTool({ session })`): the description
   * says that state persists, how long an idle session lives, and offers `reset`.
   */
  session?: { idleMs: number };
}

/** The description the model reads. */
export function describeCodeTool(
  tools: readonly ToolDefinition[],
  limits: ExecutionLimits,
  moduleName = DEFAULT_MODULE_NAME,
  options: DescribeCodeToolOptions = {},
): string {
  const lines = [
    "Run a Python 3 script that can call tools as Python functions. Only what the script prints comes back to you,",
    "so use it to chain many tool calls, loop, filter and aggregate without passing intermediate results through the conversation.",
    ...(options.session ? describeSession(options.session) : []),
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
    lines.push(...describeApprovals(tools, options.canApprove === true));
  }
  lines.push(
    "",
    `Limits: ${formatDuration(limits.timeoutMs)} timeout, ${formatBytes(limits.maxStdoutBytes)} stdout cap (head and tail kept${
      limits.spillBytes > 0 ? `; the whole output, up to ${formatBytes(limits.spillBytes)}, is saved to a file the notice names` : ""
    }), ` +
      `max ${limits.maxToolCalls} tool calls per script.` +
      (tools.some((tool) => tool.name === "terminal") ? " terminal() is foreground-only (no background processes)." : ""),
  );
  return lines.join("\n");
}

/** What persists between calls of a tool that keeps a session, as lines of the description. */
function describeSession(session: { idleMs: number }): string[] {
  const idle = Number.isFinite(session.idleMs) ? ` after ${describeIdleTime(session.idleMs)} without a call` : " when the host ends it";
  return [
    "",
    "State persists between calls in this conversation: one Python session runs every script, so variables, imports, functions",
    "and open files from earlier calls are still there (load data once, then query it call after call).",
    `Pass reset: true to start from a fresh session. The session ends${idle}, and the result says when earlier state was lost.`,
  ];
}

/** Which tools need approval, and what that means for a call, as lines of the description. */
function describeApprovals(tools: readonly ToolDefinition[], canApprove: boolean): string[] {
  const always = tools.filter((tool) => tool.needsApproval === true).map((tool) => tool.name);
  const sometimes = tools.filter((tool) => typeof tool.needsApproval === "function").map((tool) => tool.name);
  if (always.length === 0 && sometimes.length === 0) return [];
  const which = [
    ...(always.length > 0 ? [`calls to ${always.join(", ")}`] : []),
    ...(sometimes.length > 0 ? [`some calls to ${sometimes.join(", ")} (depending on their arguments)`] : []),
  ].join(" and ");
  return canApprove
    ? [
        "",
        `Approval: ${which} need approval. Such a call waits until it is decided and raises ToolError when denied; the message says why. Catch it and go on; do not retry a denied call.`,
      ]
    : ["", `Approval: ${which} need approval, which nobody can give in this run: they raise ToolError (denied). Do not make them.`];
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}-minute`;
  return `${Math.round(ms / 1000)}-second`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${Number((bytes / 1_000_000).toFixed(1))} MB`;
  return bytes >= 1000 ? `${Math.round(bytes / 1000)} KB` : `${bytes} bytes`;
}
