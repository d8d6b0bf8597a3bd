/**
 * `defineTool()`: a tool whose argument types come from its parameters schema, so the schema that
 * validates the script's arguments and the type `execute` reads them with cannot drift apart.
 * The schema is either a JSON Schema literal (its type is read from the literal, see
 * {@link JSONSchemaType}) or a Standard Schema such as zod 4 or valibot (its own output type; it
 * is converted to JSON Schema for the stub and validates every call itself, so its defaults and
 * transforms apply). Tools built at run time, whose schema no compiler sees, are plain
 * {@link ToolDefinition} objects.
 */
import type { JSONSchema } from "./schema/json-schema.js";
import type { JSONSchemaType } from "./schema/json-schema-type.js";
import { isStandardSchema, parseWithStandardSchema, standardInputJsonSchema, type StandardSchemaV1 } from "./schema/standard-schema.js";
import type { ToolContext, ToolDefinition } from "./tool.js";

/** A tool's parameters: a JSON Schema, or a Standard Schema that can describe itself as one. */
export type ToolParameters = JSONSchema | StandardSchemaV1;

/**
 * What `execute` receives for `Parameters`: a Standard Schema's output (defaults filled in,
 * transforms applied), or the type a JSON Schema literal describes. Never `any`: what cannot be
 * read from the schema is `unknown`, and arguments that are not typed at all are
 * `Record<string, unknown>`.
 */
export type ToolArguments<Parameters> = Parameters extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<Parameters>
  : ArgumentsObject<JSONSchemaType<Parameters>>;

/** What the script may send for `Parameters` (a Standard Schema's input: defaulted fields optional). */
export type ToolInput<Parameters> = Parameters extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<Parameters>
  : ArgumentsObject<JSONSchemaType<Parameters>>;

/** Arguments are always an object: the guest sends them by name. */
type ArgumentsObject<Type> = unknown extends Type ? Record<string, unknown> : Type;

/** What {@link defineTool} takes: a {@link ToolDefinition} whose `execute` is typed by `parameters`. */
export interface ToolSpec<Parameters extends ToolParameters, Result> extends Omit<ToolDefinition, "parameters" | "execute"> {
  /** JSON Schema of the arguments object, or a Standard Schema (zod 4, valibot, ArkType, …). */
  readonly parameters: Parameters;
  /** Runs the tool with arguments already validated by `parameters`. */
  execute(args: ToolArguments<Parameters>, context: ToolContext): Promise<Result> | Result;
}

/**
 * Defines a tool with typed arguments.
 *
 * With a JSON Schema literal, the definition is returned as it is. With a Standard Schema, the
 * returned definition's `parameters` is the schema's input JSON Schema (fields with a default are
 * optional), and its `execute` validates each call with the schema itself before yours runs;
 * failures reach the script as `ToolError("Invalid arguments: …")`. Throws `INVALID_TOOL` when a
 * Standard Schema cannot describe itself as JSON Schema or does not describe an object.
 *
 * @example
 * defineTool({
 *   name: "forecast",
 *   description: "Tomorrow's forecast for a city.",
 *   parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
 *   execute: async ({ city, days }) => api.forecast(city, days ?? 1), // city: string, days: number | undefined
 * });
 */
export function defineTool<const Parameters extends ToolParameters, Result>(
  tool: ToolSpec<Parameters, Result>,
): ToolDefinition<ToolInput<Parameters>, Result> {
  const schema: ToolParameters = tool.parameters;
  if (!isStandardSchema(schema)) return tool as ToolDefinition<ToolInput<Parameters>, Result>;
  return {
    ...tool,
    parameters: standardInputJsonSchema(schema, tool.name),
    async execute(args: unknown, context: ToolContext): Promise<Result> {
      return tool.execute((await parseWithStandardSchema(schema, args)) as ToolArguments<Parameters>, context);
    },
  };
}
