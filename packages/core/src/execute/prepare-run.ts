/**
 * Preparing a run: the options checked and resolved, and the run's fresh ids — all before anything
 * in the environment is touched, so invalid options throw and leave nothing behind.
 */
import type { Environment } from "../environment.js";
import { assertModuleName } from "../guest/python-names.js";
import { DEFAULT_MODULE_NAME } from "../guest/python-stub.js";
import { newRunId, newRunToken } from "../ids.js";
import type { ToolDefinition } from "../tool.js";
import { checkToolSet } from "../tool-set.js";
import type { Transport } from "../transport.js";
import { checkRunOptionShapes, checkToolListShapes } from "./check-run-options.js";
import type { ExecuteCodeOptions } from "./execute-options.js";
import { resolveApprovalTimeout, resolveLimits, type ExecutionLimits } from "./limits.js";
import { supportingTransports } from "./open-transport.js";

/** A run's settled inputs: what every later step reads instead of the raw options. */
export interface PreparedRun {
  readonly environment: Environment;
  readonly code: string;
  /** The transports that support the environment, in order of preference; never empty. */
  readonly candidates: readonly [Transport, ...Transport[]];
  /** The allow-listed tools: the only ones the dispatcher serves and the stub module offers. */
  readonly tools: readonly ToolDefinition[];
  readonly limits: ExecutionLimits;
  /** Longest wait for one approval (ms). */
  readonly approvalTimeoutMs: number;
  readonly moduleName: string;
  readonly interpreter: string;
  readonly runId: string;
  /** The per-run secret the guest presents to the dispatcher. */
  readonly token: string;
}

/**
 * Resolves the options of one run. Throws for invalid options (a value of the wrong shape, limits, a contract version, no
 * transport for the environment, a tool set that cannot be offered, a module name Python cannot
 * import); a missing script is not invalid options but a result (see {@link noCodeReason}).
 */
export function prepareRun(options: ExecuteCodeOptions): PreparedRun {
  checkRunOptionShapes(options);
  const limits = resolveLimits(options.limits);
  const [preferred, ...fallbacks] = supportingTransports(options.transport, options.environment);
  const tools = selectTools(options.tools ?? [], options.allowedTools);
  const moduleName = options.moduleName ?? DEFAULT_MODULE_NAME;
  assertModuleName(moduleName);
  return {
    environment: options.environment,
    code: options.code,
    // supportingTransports throws rather than return none.
    candidates: [preferred!, ...fallbacks],
    tools,
    limits,
    approvalTimeoutMs: resolveApprovalTimeout(options.approvalTimeoutMs),
    moduleName,
    interpreter: options.interpreter ?? "python3",
    runId: newRunId(),
    token: newRunToken(),
  };
}

/**
 * Why there is no script to run, or undefined when there is one: a model may send none, or only
 * whitespace; a caller may pass something that is not text at all.
 */
export function noCodeReason(code: unknown): string | undefined {
  if (code === undefined || code === null || (typeof code === "string" && code.trim() === "")) return "No code provided.";
  if (typeof code !== "string")
    return `No code to run: code must be a string of Python source, got ${Array.isArray(code) ? "a list" : `a ${typeof code}`}.`;
  return undefined;
}

/**
 * The allow-listed tools: all when no list is given, none for an empty list. Throws
 * `INVALID_TOOL` for a tool set that cannot be offered (see {@link checkToolSet}).
 */
export function selectTools(tools: readonly ToolDefinition[], allowed: readonly string[] | undefined): ToolDefinition[] {
  checkToolListShapes(tools, allowed);
  checkToolSet(tools);
  if (allowed === undefined) return [...tools];
  const allowSet = new Set(allowed);
  return tools.filter((tool) => allowSet.has(tool.name));
}
