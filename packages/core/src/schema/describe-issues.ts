/**
 * Readable problems from the validator's output units. The lines go back to the model as
 * `ToolError("Invalid arguments: ...")`, so each names the argument by its path
 * (`options.headers[1].name`) and says what was expected, in the words of the schema.
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import type { CompiledSchema } from "./compile-schema.js";

/** At most this many problems are reported at once; the model fixes them one call later anyway. */
export const MAX_ISSUES = 10;

/** Keywords whose failure is explained by the units of their subschemas, which follow them. */
const WRAPPERS = new Set([
  "$ref",
  "$recursiveRef",
  "allOf",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "dependentSchemas",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "if",
]);

/** Keywords that speak for their subschemas: the alternatives' own failures are noise. */
const SUMMARISING = new Set(["anyOf", "oneOf", "not", "contains", "propertyNames"]);

interface Located {
  /** The value the unit is about. */
  value: unknown;
  /** `arguments` for the whole value, else `'path'`. */
  where: string;
  /** The readable path, "" for the whole value. */
  path: string;
}

/** Turns the units of a failed validation of `value` into at most {@link MAX_ISSUES} lines. */
export function describeIssues(value: unknown, units: readonly OutputUnit[], compiled: CompiledSchema, rootName = "arguments"): string[] {
  // A value of the wrong type fails its schema's other keywords too; the type says it all.
  const typed = units.filter((unit) => unit.keyword === "type").map((unit) => unit.keywordLocation.slice(0, -"type".length));
  const summarised: string[] = [];
  const issues = new Set<string>();
  let previous: OutputUnit | undefined;
  for (const unit of units) {
    const wrapper = previous;
    previous = unit;
    if (issues.size >= MAX_ISSUES) break;
    const location = unit.keywordLocation;
    if (typed.some((prefix) => location.startsWith(prefix) && location !== `${prefix}type`)) continue;
    if (summarised.some((prefix) => location.startsWith(prefix))) continue;
    if (WRAPPERS.has(unit.keyword)) continue;
    if (SUMMARISING.has(unit.keyword)) summarised.push(`${location}/`);
    const located = locate(value, unit.instanceLocation, rootName);
    const schema = unit.keyword === "false" ? undefined : parentSchema(compiled, location);
    for (const line of describe(unit, located, schema, wrapper, compiled)) issues.add(line);
  }
  return [...issues].slice(0, MAX_ISSUES);
}

function describe(unit: OutputUnit, at: Located, schema: Schema | undefined, wrapper: OutputUnit | undefined, compiled: CompiledSchema): string[] {
  const { where, value } = at;
  const s = (schema ?? {}) as Schema & Record<string, unknown>;
  switch (unit.keyword) {
    case "false": {
      // A `false` schema: after additionalProperties/unevaluatedProperties it means "no other names".
      if (wrapper && (wrapper.keyword === "additionalProperties" || wrapper.keyword === "unevaluatedProperties")) {
        const known = Object.keys((parentSchema(compiled, wrapper.keywordLocation)?.properties as object | undefined) ?? {});
        return [`unknown argument '${at.path}'${known.length ? ` (expected: ${known.join(", ")})` : ""}`];
      }
      return [`${where} is not allowed here`];
    }
    case "type": {
      const allowed = Array.isArray(s.type) ? s.type : [s.type];
      return [`${where} must be ${allowed.map((type) => article(String(type))).join(" or ")}, got ${describeValue(value)}`];
    }
    case "const":
      return [`${where} must be ${short(s.const)}`];
    case "enum":
      return [`${where} must be one of ${(s.enum ?? []).map(short).join(", ")}`];
    case "required":
      return missing(value, s.required ?? []).map((name) => `missing required argument '${join(at.path, name)}'`);
    case "dependentRequired":
    case "dependencies": {
      const rules = (unit.keyword === "dependentRequired" ? s.dependentRequired : s.dependencies) as Record<string, unknown> | undefined;
      const lines: string[] = [];
      for (const [name, needs] of Object.entries(rules ?? {})) {
        if (!isObject(value) || !Object.hasOwn(value, name)) continue;
        if (Array.isArray(needs)) {
          for (const other of missing(value, needs as string[]))
            lines.push(`'${join(at.path, other)}' is required when '${join(at.path, name)}' is given`);
        }
      }
      // The schema form of `dependencies` is explained by its subschema's own units.
      return lines;
    }
    case "minProperties":
      return [`${where} must have at least ${s.minProperties} ${plural(s.minProperties!, "property", "properties")}`];
    case "maxProperties":
      return [`${where} must have at most ${s.maxProperties} ${plural(s.maxProperties!, "property", "properties")}`];
    case "propertyNames":
      return [`${where} has a property name that does not match ${short(s.propertyNames)}`];
    case "minItems":
      return [`${where} must have at least ${s.minItems} items`];
    case "maxItems":
      return [`${where} must have at most ${s.maxItems} items`];
    case "uniqueItems":
      return [
        `${where} must not contain duplicate items (${unit.error.replace(/^Duplicate items at indexes (\d+) and (\d+)\.$/, "items $1 and $2 are equal")})`,
      ];
    case "contains":
    case "minContains":
    case "maxContains": {
      const least = s.minContains ?? 1;
      const most = s.maxContains;
      const bound = unit.keyword === "maxContains" ? `at most ${most}` : `at least ${least}`;
      return [
        `${where} must contain ${bound} ${plural(unit.keyword === "maxContains" ? most! : least, "item", "items")} matching ${short(s.contains)}`,
      ];
    }
    case "minLength":
      return [`${where} must have at least ${s.minLength} characters`];
    case "maxLength":
      return [`${where} must have at most ${s.maxLength} characters`];
    case "pattern":
      return [`${where} must match the pattern ${s.pattern}`];
    case "format":
      return [`${where} must be a valid ${s.format}`];
    case "minimum":
      return [`${where} must be ${s.exclusiveMinimum === true ? ">" : ">="} ${s.minimum}`];
    case "maximum":
      return [`${where} must be ${s.exclusiveMaximum === true ? "<" : "<="} ${s.maximum}`];
    case "exclusiveMinimum":
      return [`${where} must be > ${s.exclusiveMinimum}`];
    case "exclusiveMaximum":
      return [`${where} must be < ${s.exclusiveMaximum}`];
    case "multipleOf":
      return [`${where} must be a multiple of ${s.multipleOf}`];
    case "anyOf":
      return [`${where} does not match any of the allowed shapes`];
    case "oneOf":
      return [`${where} does not match exactly one of the allowed shapes`];
    case "not":
      return [`${where} must not match ${short(s.not)}`];
    default:
      // A keyword without words of its own here still fails the call, with the validator's text.
      return [`${where}: ${unit.error}`];
  }
}

/** The schema object holding the keyword at `keywordLocation`, following `$ref` jumps. */
function parentSchema(compiled: CompiledSchema, keywordLocation: string): (Schema & Record<string, unknown>) | undefined {
  const segments = keywordLocation.split("/").slice(1, -1).map(decodeSegment);
  let node: unknown = compiled.schema;
  for (const segment of segments) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    const current = node as Record<string, unknown> & { __absolute_ref__?: string; __absolute_recursive_ref__?: string };
    if (segment === "$ref") node = compiled.lookup[current.__absolute_ref__ ?? ""];
    else if (segment === "$recursiveRef") node = compiled.lookup[current.__absolute_recursive_ref__ ?? ""];
    else node = Object.hasOwn(current, segment) ? current[segment] : undefined;
  }
  return isObject(node) ? (node as Schema & Record<string, unknown>) : undefined;
}

/** The value at a JSON pointer (`#/options/headers/1`) and its readable path. */
function locate(root: unknown, instanceLocation: string, rootName: string): Located {
  let value = root;
  let path = "";
  for (const segment of instanceLocation.split("/").slice(1).map(decodeSegment)) {
    if (Array.isArray(value)) {
      path = `${path}[${segment}]`;
      value = value[Number(segment)];
    } else {
      path = join(path, segment);
      value = isObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
    }
  }
  return { value, path, where: path === "" ? rootName : `'${path}'` };
}

function decodeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all; use it as it is.
  }
  return text.replace(/~1/g, "/").replace(/~0/g, "~");
}

function missing(value: unknown, names: readonly string[]): string[] {
  // Own properties only: `{}` must not have a `constructor` argument from Object.prototype.
  return isObject(value) ? names.filter((name) => !Object.hasOwn(value, name)) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && Number.isInteger(value)) return `the integer ${value}`;
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return article(typeof value);
}

/** A value or subschema in a message, cut short: a schema can be long. */
function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function plural(count: number, one: string, many: string): string {
  return count === 1 ? one : many;
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}
