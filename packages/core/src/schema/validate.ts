/**
 * Validates tool arguments against the tool's JSON Schema before the tool runs. The guest's
 * arguments are untrusted, so every keyword of the schema is enforced (drafts 4, 7, 2019-09 and
 * 2020-12, by @cfworker/json-schema: complete, and free of eval so it runs on any runtime), and
 * the messages go back to the model, so they name the argument and say what was expected.
 */
import { validate } from "@cfworker/json-schema";
import { errorMessage } from "../errors.js";
import { compileSchema, type CompiledSchema } from "./compile-schema.js";
import { describeIssues } from "./describe-issues.js";
import { jsonShape } from "./json-depth.js";
import type { JSONSchema } from "./json-schema.js";

/**
 * Returns the problems found, as readable lines; an empty list means the value is valid. Never
 * throws: the schema is compiled on first use (see {@link compileSchema}), and one that cannot be
 * enforced fails every value with the reason (building the tool set refuses it first).
 */
export function validateAgainstSchema(value: unknown, schema: JSONSchema): string[] {
  let compiled: CompiledSchema;
  try {
    compiled = compileSchema(schema);
  } catch (error) {
    return [`the tool's parameters schema cannot be enforced: ${errorMessage(error)}`];
  }
  // The arguments of a call without arguments: the schema's verdict on `{}`, found once. Exact,
  // not a shortcut: validation is a function of the JSON value, and every empty object is `{}`.
  if (isEmptyPlainObject(value)) {
    let verdict = emptyObjectVerdicts.get(compiled);
    if (verdict === undefined) emptyObjectVerdicts.set(compiled, (verdict = check({}, compiled)));
    return [...verdict];
  }
  return check(value, compiled);
}

/**
 * The problems `value` has as argument `name` on its own: what the schema says at that argument,
 * not what it says of the object (the other arguments are absent, some may be required). Empty
 * when the schema cannot be compiled: building the tool set refuses it with the reason.
 */
export function argumentIssues(schema: JSONSchema, name: string, value: unknown): string[] {
  let compiled: CompiledSchema;
  try {
    compiled = compileSchema(schema);
  } catch {
    return [];
  }
  const args = { [name]: value };
  const units = validate(args, compiled.schema, compiled.draft, compiled.lookup, false).errors;
  // The object holds nothing but the argument: every unit below the root is about it.
  return describeIssues(
    args,
    units.filter((unit) => unit.instanceLocation !== "#"),
    compiled,
  );
}

/**
 * Arguments of up to this many values get every problem found (one validator output unit per
 * failing value); larger ones get the first (a million bad items would cost seconds and a million
 * units, for a message that names ten).
 */
export const MAX_DETAILED_NODES = 10_000;
/**
 * The validator checks `uniqueItems` by comparing every pair: arrays of at most this many items in
 * all (the sum of their squares, precisely) are checked, so one call costs the host milliseconds.
 */
export const MAX_UNIQUE_ITEMS_CHECKED = 5_000;

/** Each compiled schema's issues with `{}` (empty when it accepts it). */
const emptyObjectVerdicts = new WeakMap<CompiledSchema, string[]>();

function check(value: unknown, compiled: CompiledSchema): string[] {
  // Checked without recursion first: a value nested 100 000 levels deep must get an answer, not
  // overflow the validator's stack.
  const shape = jsonShape(value);
  if (shape.problem) return [`${where(shape.problem.path)} ${shape.problem.problem}`];
  const longest = shape.longestArray;
  if (compiled.uniqueItems && longest !== undefined && shape.pairwiseWork > MAX_UNIQUE_ITEMS_CHECKED ** 2) {
    return [
      `${where(longest.path)} has ${longest.length} items: this tool's schema asks for unique items, which are checked ` +
        `in arrays of at most ${MAX_UNIQUE_ITEMS_CHECKED} items in all`,
    ];
  }
  try {
    // Stops at the first problem: the verdict is the same, and a valid call (the common one) costs one pass.
    const verdict = validate(value, compiled.schema, compiled.draft, compiled.lookup, true);
    if (verdict.valid) return [];
    const result = shape.nodes <= MAX_DETAILED_NODES ? validate(value, compiled.schema, compiled.draft, compiled.lookup, false) : verdict;
    return describeIssues(value, result.errors, compiled);
  } catch (error) {
    // A schema that recurses several times per level can still exhaust the stack within the bound.
    if (error instanceof RangeError) return ["arguments nest too deeply to be validated against this schema"];
    return [`arguments could not be validated: ${errorMessage(error)}`];
  }
}

function where(path: string): string {
  return path === "" ? "arguments" : `'${path}'`;
}

/** A plain object (as JSON.parse makes) with no enumerable property. */
function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _ in value) return false;
  return true;
}
