/**
 * `fromAiSdkTools()`: the tools of an AI SDK tool set, callable from the script. Each becomes a
 * codecall tool whose stub function has an importable name, whose parameters are the JSON Schema
 * the AI SDK itself would send the model (defaulted fields optional), and whose `execute` checks
 * the arguments with the tool's own schema (so zod's defaults and transforms apply) before it
 * calls the AI SDK tool's `execute` the way the AI SDK does: with a `toolCallId`, the run's abort
 * signal, and `messages`. A tool's `needsApproval` becomes codecall's, so its calls from a script
 * wait for the run's `onApproval`.
 */
import {
  CodecallError,
  errorMessage,
  pythonToolNames,
  type JSONSchema,
  type NeedsApproval,
  type PythonToolNameOptions,
  type ToolDefinition,
} from "@codecall/core";
import { isStandardSchema, objectRootProblem, parseWithStandardSchema } from "@codecall/core/plugin-kit";
import { asSchema, type ModelMessage, type Tool, type ToolSet } from "ai";
import { validationFailure } from "./validation-failure.js";

export interface FromAiSdkToolsOptions extends PythonToolNameOptions {
  /**
   * Passed to every tool (its `execute` and its `needsApproval` function) as `messages` (the AI SDK
   * passes the messages that led to the call; a script's call has none of its own). Default `[]`.
   */
  messages?: ModelMessage[];
  /** Passed to every tool (`execute`, `needsApproval`) as `experimental_context`, as `generateText({ experimental_context })` does. */
  experimental_context?: unknown;
}

/** A codecall tool made from an AI SDK tool; `aiSdkName` is its key in the tool set. */
export interface AiSdkToolDefinition extends ToolDefinition<Record<string, unknown>, unknown> {
  readonly aiSdkName: string;
}

/**
 * Converts `tools` (an AI SDK `ToolSet`: zod, any Standard Schema, or `jsonSchema()` inputs) into
 * codecall tools, in the set's order. Names are mapped to importable Python names by
 * `pythonToolNames` (`get-weather` → `get_weather`; collisions get `_2`, …; `prefix` and
 * `reserved` as there). A tool's `needsApproval` (`true`, or its function of the input) is kept:
 * the run's `onApproval` decides those calls while the script waits. Throws `INVALID_TOOL`
 * naming the tool for one a script cannot call: no `execute` (a client-side or
 * provider-executed tool), or an input schema that is not of an object.
 */
export async function fromAiSdkTools(tools: ToolSet, options: FromAiSdkToolsOptions = {}): Promise<AiSdkToolDefinition[]> {
  const entries = Object.entries(tools) as [string, Tool][];
  const names = pythonToolNames(
    entries.map(([name]) => name),
    options,
  );
  return Promise.all(entries.map(([aiSdkName, aiTool], index) => convert(aiSdkName, names[index]!, aiTool, options)));
}

async function convert(aiSdkName: string, name: string, aiTool: Tool, options: FromAiSdkToolsOptions): Promise<AiSdkToolDefinition> {
  const refuse = (why: string, cause?: unknown) =>
    new CodecallError("INVALID_TOOL", `AI SDK tool "${aiSdkName}" ${why}`, { cause, details: { tool: aiSdkName } });
  const run = aiTool.execute;
  if (typeof run !== "function") {
    throw refuse(
      aiTool.type === "provider"
        ? "is executed by its provider, not here: a script cannot call it. Leave it out of the set given to fromAiSdkTools."
        : "has no execute function (its result comes from the client, e.g. a user's answer): a script cannot call it. Leave it out of the set given to fromAiSdkTools.",
    );
  }
  const input = asSchema(aiTool.inputSchema);
  let parameters: JSONSchema;
  let returns: JSONSchema | undefined;
  try {
    parameters = asData(await input.jsonSchema);
    returns = aiTool.outputSchema === undefined ? undefined : asData(await asSchema(aiTool.outputSchema).jsonSchema);
  } catch (error) {
    throw refuse(`has a schema that cannot be converted to JSON Schema: ${errorMessage(error)}`, error);
  }
  const rootProblem = objectRootProblem(parameters);
  if (rootProblem) {
    throw refuse(`accepts no arguments object (${rootProblem}): a script passes arguments by name, so its input schema must be of an object.`);
  }
  const schema = aiTool.inputSchema;
  const parse = async (args: Record<string, unknown>): Promise<unknown> => {
    if (isStandardSchema(schema)) return parseWithStandardSchema(schema, args);
    const result = input.validate === undefined ? { success: true as const, value: args } : await input.validate(args);
    if (!result.success) throw new Error(`Invalid arguments: ${validationFailure(result.error)}`);
    return result.value;
  };
  // One parse per call: the dispatcher hands the same arguments object to `needsApproval` and to
  // `execute`, so the approval rule decides on exactly the value the tool then runs with (a schema
  // whose refinements are not pure could otherwise pass one and fail the other). Execute takes the
  // entry; one left by a denied call goes with its arguments.
  const parsed = new WeakMap<object, Promise<unknown>>();
  const parseOnce = (args: Record<string, unknown>): Promise<unknown> => {
    let outcome = parsed.get(args);
    if (outcome === undefined) parsed.set(args, (outcome = parse(args)));
    return outcome;
  };
  const callOptions = (context: { runId: string; callId: string }) => ({
    toolCallId: toolCallIdOf(context),
    messages: options.messages ?? [],
    experimental_context: options.experimental_context,
  });
  const rule = aiTool.needsApproval;
  const needsApproval: NeedsApproval | undefined =
    typeof rule === "function"
      ? async (args, context) => {
          let value: unknown;
          try {
            value = await parseOnce(args);
          } catch {
            // Arguments the tool's schema refuses fail before the tool runs (the same outcome is
            // reused by execute): there is nothing to approve, as when the model calls it directly.
            return false;
          }
          return rule(value, callOptions(context));
        }
      : rule;
  return {
    name,
    aiSdkName,
    description: aiTool.description ?? "",
    parameters,
    ...(returns === undefined ? {} : { returns }),
    ...(needsApproval === undefined || needsApproval === false ? {} : { needsApproval }),
    async execute(args, context) {
      const outcome = parseOnce(args);
      // Taken, not kept: a second call with the same object (outside a run) parses afresh.
      parsed.delete(args);
      const value = await outcome;
      const output: unknown = await run(value, { ...callOptions(context), abortSignal: context.signal });
      return isAsyncIterable(output) ? lastValue(output, context.signal) : output;
    },
  };
}

/**
 * The `toolCallId` an AI SDK tool sees for a call from a script: the run's id and the call's number
 * in it, the same in `needsApproval` and in `execute` (and the `callId` of the run's events and
 * approval request), and unique across runs.
 */
function toolCallIdOf(context: { runId: string; callId: string }): string {
  return `codecall-${context.runId}-${context.callId}`;
}

/** The schema as JSON data: zod hides a `~standard` (functions) in the JSON Schemas it generates. */
function asData(schema: unknown): JSONSchema {
  return JSON.parse(JSON.stringify(schema)) as JSONSchema;
}

/** A tool that streams preliminary results (`async function*`): its final result is the last one. */
function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * The last value of `values`. A cancelled call (the run ended, timed out or was interrupted) stops
 * pulling: the loop's exit returns the generator, so its `finally` blocks run and one that would
 * yield for ever ends instead of running on in the host after its run.
 */
async function lastValue(values: AsyncIterable<unknown>, signal: AbortSignal): Promise<unknown> {
  let last: unknown;
  for await (const value of values) {
    signal.throwIfAborted();
    last = value;
  }
  return last;
}
