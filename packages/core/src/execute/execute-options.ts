/** What `executeCode()` takes: the script, where it runs, how it reaches the host, and its bounds. */
import type { ApprovalHandler } from "../approval.js";
import type { Environment } from "../environment.js";
import type { RunEvent } from "../events.js";
import type { ToolCallEvent } from "../rpc/dispatcher.js";
import type { TelemetryOptions } from "../telemetry/open-telemetry.js";
import type { ToolDefinition } from "../tool.js";
import type { Transport } from "../transport.js";
import type { EnvPolicy } from "./env-policy.js";
import type { ExecutionLimits } from "./limits.js";

export interface ExecuteCodeOptions {
  /** The Python source to run. */
  code: string;
  /** Where it runs. `executeCode` does not close it. */
  environment: Environment;
  /** The transport, or candidates in order of preference (the first that supports the environment wins). */
  transport: Transport | readonly Transport[];
  /** Tools the script may call (also the source of the stub module). */
  tools?: readonly ToolDefinition[];
  /** Names from `tools` the script may call; omitted = all of them, empty = none. */
  allowedTools?: readonly string[];
  limits?: Partial<ExecutionLimits>;
  /** Which variables reach the script (allowlist + secret filter by default; `host` defaults to this process's env). */
  env?: EnvPolicy;
  /** Working directory of the script and of its tools; default: the environment's own. */
  cwd?: string;
  /** Aborting ends the script (status `interrupted`) and cancels in-flight tool calls. */
  signal?: AbortSignal;
  /** Name the script imports the tools from (default `codecall`). */
  moduleName?: string;
  /**
   * What tracebacks, warnings and syntax errors call the script, e.g. the path of the file it came
   * from (`my_script.py`). Default: its copy in the run dir. `__file__` and `sys.argv[0]` stay the
   * copy's path, which exists wherever the script runs.
   */
  scriptName?: string;
  /** Python interpreter command inside the environment (default `python3`). */
  interpreter?: string;
  /** Mask secrets in the output (default true). */
  redactSecrets?: boolean;
  /**
   * Decides the calls of tools that declare `needsApproval`, while the script waits (see
   * {@link ApprovalHandler}). Without it such calls are denied: they raise `ToolError` in the script.
   */
  onApproval?: ApprovalHandler;
  /**
   * Longest wait for one approval, in ms (default 300 000); then the call is denied ("no answer").
   * While any call waits, the script's time limit is paused.
   */
  approvalTimeoutMs?: number;
  /**
   * Every event of the run, in order, as it happens: `started`, output chunks, tool calls,
   * approvals, `finished` (see {@link RunEvent}). Called synchronously and never dropped; it cannot
   * break the run (a throw, or an async callback's rejection, is ignored). A promise returned for
   * an output event holds the script's output until it settles (see `onStdout`).
   */
  onEvent?: (event: RunEvent) => unknown;
  /**
   * OpenTelemetry spans (a `codecall.run` span and an `execute_tool <name>` span per call), when
   * `@opentelemetry/api` is installed: on by default with the application's tracer provider;
   * `false` turns them off.
   */
  telemetry?: TelemetryOptions | false;
  /**
   * Live stdout of the script: the `stdout` events' chunks (see `onEvent`). Secrets are masked as
   * in the result, also across chunks, so a secret may arrive a little later than the text before
   * it; with `redactSecrets: false` the chunks are the script's bytes as they are.
   *
   * Return a promise to hold the output until you have taken the chunk (written it to a slow
   * pipe, sent it over a network): no more is read from the script meanwhile, so once its pipe is
   * full its next write waits, as with a slow terminal, and the host holds nothing. The time limit
   * runs on while it waits; a rejection counts as taken.
   */
  onStdout?: (chunk: Uint8Array) => unknown;
  /** Live stderr of the script: the `stderr` events' chunks (held the same way as `onStdout`). */
  onStderr?: (chunk: Uint8Array) => unknown;
  /** The start and end of every dispatched tool call (the `tool-call-start`/`-end` events in their older shape). */
  onToolCall?: (event: ToolCallEvent) => void;
}
