import type { NeedsApproval } from "./approval.js";
import type { Environment } from "./environment.js";
import type { JSONSchema } from "./schema/json-schema.js";

/** What a tool gets besides its arguments. */
export interface ToolContext {
  /**
   * The environment the script runs in. Built-in tools act here, so `terminal("ls")` in a Docker
   * run lists the container. Commands get the same scrubbed env as the script.
   */
  readonly environment: Environment;
  /** Aborted when the run is interrupted or ends; long tools should stop. */
  readonly signal: AbortSignal;
  /** Identifies the run, for logs. */
  readonly runId: string;
  /**
   * Identifies this call within the run: the `callId` its events, its approval request and its
   * tool's `needsApproval` function carry, so a tool (or an adapter) can tie them together.
   */
  readonly callId: string;
}

/**
 * A tool the script can call. It runs on the host (it may hold credentials); `parameters` is the
 * JSON Schema its arguments are validated against before `execute` runs.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an untyped tool reads its (schema-validated) arguments without a cast
export interface ToolDefinition<Args = any, Result = unknown> {
  /** A Python-identifier-friendly name: letters, digits, `_`; becomes the stub function name. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: JSONSchema;
  /** JSON Schema of the result, documented in the stub's docstring for the model. */
  readonly returns?: JSONSchema;
  /**
   * Whether a call must be approved before it runs (default: never). `true` for every call, or a
   * function of the call's arguments. The run's `onApproval` decides; a run without one denies
   * such calls, and the tool description says which tools need approval.
   */
  readonly needsApproval?: NeedsApproval<Args>;
  /** Runs the tool. The result must be JSON-serialisable; a throw becomes a `ToolError` in the guest. */
  execute(args: Args, context: ToolContext): Promise<Result> | Result;
}
