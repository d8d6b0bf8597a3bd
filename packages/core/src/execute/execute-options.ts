/** What `executeCode()` takes: the script, where it runs, how it reaches the host, and its bounds. */
import type { Environment } from "../environment.js";
import type { ToolCallEvent } from "../rpc/dispatcher.js";
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
   * Live stdout of the script, as it arrives (uncapped). Secrets are masked as in the result, also
   * across chunks, so a secret may arrive a little later than the text before it; with
   * `redactSecrets: false` the chunks are the script's bytes as they are.
   */
  onStdout?: (chunk: Uint8Array) => void;
  onStderr?: (chunk: Uint8Array) => void;
  /** Progress: every dispatched tool call, at start and end. */
  onToolCall?: (event: ToolCallEvent) => void;
}
