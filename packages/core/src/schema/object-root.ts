/**
 * Whether a parameters schema can accept the arguments a script sends. A call's arguments are
 * always an object (the stub calls a tool with keyword arguments, `call_tool(name, **kwargs)`
 * too, and the dispatcher refuses anything else), so a schema whose root accepts no object at all
 * — `{"type": "string"}`, `{"type": "array"}`, `false`, an `anyOf` of scalars — would make every
 * call of its tool fail. `true` and `{}` accept any object: a tool without parameters. What cannot
 * be read here (a `$ref` by `$id`, `not`, `if`) is given the benefit of the doubt.
 */
import { resolveLocal } from "../guest/schema-view.js";
import type { JSONSchema } from "./json-schema.js";

/** How deep `allOf`/`anyOf`/`oneOf`/`$ref` are followed: real schemas need two or three levels. */
const MAX_DEPTH = 8;

/** The rule, for the error message: what to write instead. */
export const OBJECT_ROOT_RULE =
  'parameters must describe the arguments object, e.g. {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}; ' +
  'a tool without parameters takes {"type": "object", "properties": {}}';

/** Why no arguments object can satisfy `schema`, or undefined when some can. */
export function objectRootProblem(schema: JSONSchema | boolean): string | undefined {
  return problemAt(schema, schema, 0);
}

function problemAt(root: JSONSchema | boolean, schema: JSONSchema | boolean, depth: number): string | undefined {
  if (schema === false) return "it is the schema false, which accepts nothing";
  if (typeof root !== "object" || typeof schema !== "object" || depth > MAX_DEPTH) return undefined;
  const resolved = resolveLocal(root, schema);
  const type = resolved.type;
  if (type !== undefined && !(type === "object" || (Array.isArray(type) && type.includes("object")))) {
    return `its type is ${JSON.stringify(type)}, not "object"`;
  }
  if ("const" in resolved && !isPlainObject(resolved.const)) return "its const is not an object";
  if (Array.isArray(resolved.enum) && !resolved.enum.some(isPlainObject)) return "its enum lists no object";
  for (const part of resolved.allOf ?? []) {
    const problem = problemAt(root, part, depth + 1);
    if (problem) return `an allOf part accepts no object (${problem})`;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const parts = resolved[keyword];
    if (!parts || parts.length === 0) continue;
    const problems = parts.map((part) => problemAt(root, part, depth + 1));
    if (problems.every((problem) => problem !== undefined)) return `none of its ${keyword} options accepts an object (${problems[0]})`;
  }
  return undefined;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
