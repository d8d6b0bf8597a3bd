/**
 * Checks a tool set when it is built (`createCodeTool`, `executeCode`, the CLI), before anything
 * is started: every name must be usable as a function of the Python stub module, no two tools may
 * share one, every parameters schema must be one the validator can enforce in full and must
 * accept the arguments object a call sends, `execute` must be a function and `description` a
 * string. A tool that fails here would otherwise fail only once a run had opened its transport,
 * or at the script's first call (or every call). A `needsApproval` that is neither a boolean nor a
 * function is refused too: a truthy string would otherwise be read as "no approval needed" by
 * nothing at all.
 */
import { CodecallError, errorMessage } from "./errors.js";
import { assertToolName } from "./guest/python-names.js";
import { generatePythonModule } from "./guest/python-stub.js";
import { compileSchema } from "./schema/compile-schema.js";
import { OBJECT_ROOT_RULE, objectRootProblem } from "./schema/object-root.js";
import { isStandardSchema, type StandardSchemaV1 } from "./schema/standard-schema.js";
import type { ToolDefinition } from "./tool.js";

/** Throws `INVALID_TOOL` naming the first tool that cannot be offered to a script, and why. */
export function checkToolSet(tools: readonly ToolDefinition[]): void {
  const names = new Set<string>();
  for (const tool of tools) {
    assertToolName(tool?.name);
    if (names.has(tool.name)) throw new CodecallError("INVALID_TOOL", `Two tools are named ${tool.name}`, { details: { tool: tool.name } });
    names.add(tool.name);
    const invalid = (why: string, cause?: unknown) =>
      new CodecallError("INVALID_TOOL", `Tool ${tool.name}: ${why}`, { cause, details: { tool: tool.name } });
    // Read as a property, not called: `typeof` is all that is asked of it here.
    const execute: unknown = (tool as { execute?: unknown }).execute;
    if (typeof execute !== "function") throw invalid(`execute must be a function (args, context) => result, got ${kindOf(execute)}`);
    const description: unknown = tool.description;
    if (typeof description !== "string") {
      throw invalid(`description must be a string (what the tool does, for the model; "" for none), got ${kindOf(description)}`);
    }
    if (isSchemaLibraryObject(tool.parameters)) {
      // A zod or valibot schema read as JSON Schema would be nonsense: say what converts it.
      throw invalid(
        `its parameters are a ${tool.parameters["~standard"].vendor} schema, not a JSON Schema: define the tool with defineTool() from @codecall/core, which converts it`,
      );
    }
    const rule: unknown = tool.needsApproval;
    if (rule !== undefined && typeof rule !== "boolean" && typeof rule !== "function") {
      throw invalid(`needsApproval must be a boolean or a function, got ${kindOf(rule)}`);
    }
    try {
      compileSchema(tool.parameters);
    } catch (error) {
      throw invalid(`its parameters schema is refused: ${errorMessage(error)}`, error);
    }
    // Every call sends an object: a schema that accepts none makes every call fail.
    const rootProblem = objectRootProblem(tool.parameters);
    if (rootProblem) throw invalid(`its parameters schema accepts no arguments object: ${rootProblem}. The rule: ${OBJECT_ROOT_RULE}.`);
    const returns: unknown = tool.returns;
    const schemaLike = typeof returns === "boolean" || (typeof returns === "object" && returns !== null && !Array.isArray(returns));
    if (returns !== undefined && (!schemaLike || isSchemaLibraryObject(returns))) {
      throw invalid(`returns must be a JSON Schema object (it documents the result for the model), got ${kindOf(returns)}`);
    }
  }
  // What is left to check is whether the stub module can be written (two parameters that map to
  // one Python name, a tool `x` beside a tool `x_async`...): writing it says so.
  generatePythonModule({ tools });
}

/** What a wrong value is, for a message: `a string`, `null`, `an array`, `a zod schema`. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isSchemaLibraryObject(value)) return `a ${value["~standard"].vendor} schema`;
  const type = typeof value;
  return type === "undefined" ? "undefined" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/**
 * A schema library's own object (a zod type, a valibot schema, an ArkType function) rather than
 * JSON Schema data. zod also hides a non-enumerable `~standard` in the JSON Schemas it generates
 * (`z.toJSONSchema()`); those are plain objects whose keys are all keywords, and are accepted.
 */
function isSchemaLibraryObject(value: unknown): value is StandardSchemaV1 {
  if (!isStandardSchema(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return typeof value === "function" || (prototype !== Object.prototype && prototype !== null) || Object.keys(value).includes("~standard");
}
