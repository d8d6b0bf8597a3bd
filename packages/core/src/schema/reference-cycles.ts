/**
 * A schema that applies itself to the same value — `{"$ref": "#"}`, a property whose `$ref` points
 * at itself, two `$defs` whose `allOf` name each other — sends validation round in a loop without
 * ever descending into the value. JSON Schema leaves such schemas undefined; here every call of the
 * tool would fail with "nests too deeply" (the validator's stack runs out). Found once, when the
 * schema is compiled: a cycle through the keywords that apply a schema in place.
 */
import type { Schema } from "@cfworker/json-schema";

/** Keywords whose schemas apply to the same value as the schema that holds them. */
const IN_PLACE_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_SINGLES = ["not", "if", "then", "else"] as const;

const VISITING = 1;
const DONE = 2;

/**
 * Where a schema comes back to itself without descending into the value (a JSON pointer such as
 * `#/properties/a`), or undefined. `lookup` is the validator's index of the compiled copy: every
 * subschema, with each `$ref` resolved to one of them.
 */
export function inPlaceCycle(lookup: Record<string, Schema | boolean>): string | undefined {
  const state = new Map<object, number>();
  for (const start of Object.values(lookup)) {
    if (typeof start !== "object" || state.has(start)) continue;
    // Iterative: a chain of ten thousand `$defs` must not exhaust the stack here either.
    const stack: { node: object; next: object[] }[] = [{ node: start, next: inPlaceSchemas(start, lookup) }];
    state.set(start, VISITING);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next.pop();
      if (child === undefined) {
        state.set(top.node, DONE);
        stack.pop();
        continue;
      }
      const seen = state.get(child);
      if (seen === VISITING) return pointerOf(child, lookup);
      if (seen === undefined) {
        state.set(child, VISITING);
        stack.push({ node: child, next: inPlaceSchemas(child, lookup) });
      }
    }
  }
  return undefined;
}

/** The schemas `schema` applies to its own value: its `$ref` target and its in-place subschemas. */
function inPlaceSchemas(schema: object, lookup: Record<string, Schema | boolean>): object[] {
  const keywords = schema as Record<string, unknown> & { __absolute_ref__?: string };
  const found: unknown[] = [];
  if (keywords.__absolute_ref__ !== undefined) found.push(lookup[keywords.__absolute_ref__]);
  for (const keyword of IN_PLACE_LISTS) if (Array.isArray(keywords[keyword])) found.push(...(keywords[keyword] as unknown[]));
  for (const keyword of IN_PLACE_SINGLES) found.push(keywords[keyword]);
  const dependent = keywords.dependentSchemas;
  if (typeof dependent === "object" && dependent !== null) found.push(...Object.values(dependent as Record<string, unknown>));
  return found.filter((value): value is object => typeof value === "object" && value !== null && !Array.isArray(value));
}

/** The schema's JSON pointer in the index (`#/properties/a`), as the schema's author wrote it. */
function pointerOf(schema: object, lookup: Record<string, Schema | boolean>): string {
  const keys = Object.keys(lookup).filter((key) => lookup[key] === schema);
  const pointer = keys.map((key) => key.slice(key.indexOf("#"))).find((key) => key.startsWith("#"));
  return pointer === undefined || pointer === "#" ? "the root" : pointer;
}
