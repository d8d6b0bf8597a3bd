/**
 * How the stub generator reads a schema that is spread over `$ref`s and `allOf` parts (zod and
 * MCP servers emit both): the argument object's properties and required names, and a property's
 * own schema behind its `$ref`. Only references inside the schema are followed; anything else is
 * left as it is (the stub then says `Any`, which is still true).
 */
import type { JSONSchema } from "../schema/json-schema.js";

/** The properties and required names of an object schema, with those of its `allOf` parts. */
export interface ObjectShape {
  properties: Record<string, JSONSchema>;
  required: Set<string>;
}

/** `schema` with its local `$ref` chain followed (the referring schema's own keywords win). */
export function resolveLocal(root: JSONSchema, schema: JSONSchema): JSONSchema {
  let current = schema;
  // By reference, not by object: each step makes a new merged object, so a chain that comes back
  // to a reference it followed (`{"$ref": "#"}`) would otherwise never end.
  const seen = new Set<string>();
  while (typeof current.$ref === "string" && current.$ref.startsWith("#") && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    const target = atPointer(root, current.$ref.slice(1));
    if (typeof target !== "object" || target === null || Array.isArray(target)) break;
    const { $ref: _followed, ...own } = current;
    current = { ...(target as JSONSchema), ...own };
  }
  return current;
}

/** The argument object's shape: properties and required names, through `$ref` and `allOf`. */
export function objectShape(root: JSONSchema, schema: JSONSchema = root, depth = 0): ObjectShape {
  const resolved = resolveLocal(root, schema);
  const shape: ObjectShape = { properties: { ...(resolved.properties ?? {}) }, required: new Set(resolved.required ?? []) };
  // Bounded: a schema whose allOf refers back to itself must not loop.
  if (depth > 8) return shape;
  for (const part of resolved.allOf ?? []) {
    const inner = objectShape(root, part, depth + 1);
    Object.assign(shape.properties, inner.properties);
    for (const name of inner.required) shape.required.add(name);
  }
  return shape;
}

function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
