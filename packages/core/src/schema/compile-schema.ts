/**
 * Turning a tool's JSON Schema into something arguments can be validated against, once, when the
 * tool set is built. A schema that is not valid JSON Schema, nests absurdly deep, refers to a
 * schema it does not contain (a remote `$ref`, a `$defs` entry that is not there) or applies
 * itself to the same value in a loop is refused here with the reason, not at the script's first call.
 */
import { dereference, validate, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import { CodecallError, errorMessage } from "../errors.js";
import { describeIssues } from "./describe-issues.js";
import { jsonShapeProblem, MAX_JSON_DEPTH } from "./json-depth.js";
import type { JSONSchema } from "./json-schema.js";
import { TOOL_META_SCHEMA } from "./meta-schema.js";
import { inPlaceCycle } from "./reference-cycles.js";

/** A schema ready for validation: a private copy, its draft, and every `$ref` target in it. */
export interface CompiledSchema {
  readonly schema: Schema | boolean;
  readonly draft: SchemaDraft;
  readonly lookup: Record<string, Schema | boolean>;
  /** It asks for unique items somewhere: the validator checks them pairwise (see `validate.ts`). */
  readonly uniqueItems: boolean;
}

const compiled = new WeakMap<object, CompiledSchema>();

/** The meta-schema, compiled without the checks (it is ours, and checking it would recurse). */
let metaSchema: CompiledSchema | undefined;

/**
 * Compiles `schema` (cached per schema object). Throws `INVALID_TOOL` with a readable reason when
 * the schema cannot be used; the caller adds which tool it belongs to.
 */
export function compileSchema(schema: JSONSchema | boolean): CompiledSchema {
  const cached = typeof schema === "object" && schema !== null ? compiled.get(schema) : undefined;
  if (cached) return cached;
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw invalid(`it must be a JSON Schema object, got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`);
  }
  let copy: Schema | boolean;
  try {
    // A private plain-JSON copy: the validator annotates the objects it indexes, and the caller's
    // schema may be frozen or shared.
    copy = JSON.parse(JSON.stringify(schema)) as Schema | boolean;
  } catch (error) {
    if (error instanceof RangeError) throw invalid(`the schema nests deeper than ${MAX_JSON_DEPTH} levels`);
    throw invalid(`it is not JSON (${errorMessage(error)})`);
  }
  const shape = jsonShapeProblem(copy);
  if (shape) throw invalid(`${shape.path === "" ? "the schema" : `'${shape.path}'`} ${shape.problem}`);
  const meta = (metaSchema ??= prepare(JSON.parse(JSON.stringify(TOOL_META_SCHEMA)) as Schema, "2020-12"));
  const metaIssues = describeIssues(copy, validate(copy, meta.schema, meta.draft, meta.lookup, false).errors, meta, "schema");
  if (metaIssues.length > 0) throw invalid(`it is not a valid JSON Schema: ${metaIssues.join("; ")}`);
  const result = prepare(copy, draftOf(copy));
  checkReferences(result.lookup);
  const cycle = inPlaceCycle(result.lookup);
  if (cycle) {
    throw invalid(
      `at ${cycle} it applies itself to the same value ($ref, allOf, anyOf, oneOf, not, if/then/else leading back to it), so validation would never end: ` +
        "a recursive schema must descend first (through properties or items)",
    );
  }
  if (typeof schema === "object") compiled.set(schema, result);
  return result;
}

/** Indexes the `$ref` targets of `schema` (a private copy: the index annotates its objects). */
function prepare(schema: Schema | boolean, draft: SchemaDraft): CompiledSchema {
  try {
    // Read before `dereference` annotates the copy. A string that merely spells it only costs a bound.
    const uniqueItems = JSON.stringify(schema).includes('"uniqueItems":true');
    return { schema, draft, lookup: dereference(schema), uniqueItems };
  } catch (error) {
    throw invalid(errorMessage(error));
  }
}

/** The draft a schema declares with `$schema`; 2020-12 (the current one, MCP's default) otherwise. */
function draftOf(schema: Schema | boolean): SchemaDraft {
  const declared = typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0[34]\b/.test(declared)) return "4";
  if (/draft-0[67]\b/.test(declared)) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Every `$ref` must point into the schema itself: nothing is fetched, nothing is skipped. */
function checkReferences(lookup: Record<string, Schema | boolean>): void {
  for (const subschema of Object.values(lookup)) {
    if (typeof subschema !== "object") continue;
    const target = subschema as Schema & { __absolute_ref__?: string; __absolute_recursive_ref__?: string };
    for (const [keyword, absolute] of [
      ["$ref", target.__absolute_ref__],
      ["$recursiveRef", target.__absolute_recursive_ref__],
    ] as const) {
      if (absolute !== undefined && lookup[absolute] === undefined) {
        const reference = (subschema as Record<string, unknown>)[keyword];
        throw invalid(
          `${keyword} ${JSON.stringify(reference)} does not resolve to a schema inside it ` +
            "(only references into the schema itself are supported — $defs, definitions, $id, $anchor; remote schemas are not fetched)",
        );
      }
    }
  }
}

function invalid(reason: string): CodecallError {
  return new CodecallError("INVALID_TOOL", reason);
}
