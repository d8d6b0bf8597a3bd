/**
 * A bound on how deep a value nests, checked without recursion. Validation (and everything else
 * that walks a value) recurses once per level, so a guest that sends 100 000 nested arrays would
 * overflow the stack; the walk here is a loop, and it stops at the first level past the bound.
 */

import { DEFAULT_MAX_JSON_DEPTH } from "../protocol/json-measure.js";

/** Deepest nesting accepted in tool arguments and in tool schemas (one limit with the dispatcher's). */
export const MAX_JSON_DEPTH = DEFAULT_MAX_JSON_DEPTH;

/**
 * Why `value` cannot be validated as JSON, or undefined when it can: nesting deeper than
 * `maxDepth`, or a value JSON has no spelling for (undefined, NaN, a function...). `path` is the
 * readable location of the first problem ("" for the value itself).
 */
export function jsonShapeProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; problem: string } | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const current = item.value;
    if (typeof current === "number" && !Number.isFinite(current)) return { path: item.path, problem: `must be a finite number, got ${current}` };
    if (current === null || typeof current === "string" || typeof current === "number" || typeof current === "boolean") continue;
    if (typeof current !== "object") return { path: item.path, problem: `is not a JSON value (${typeof current})` };
    if (item.depth >= maxDepth) return { path: item.path, problem: `nests deeper than ${maxDepth} levels` };
    if (Array.isArray(current)) {
      current.forEach((child, index) => stack.push({ value: child, path: `${item.path}[${index}]`, depth: item.depth + 1 }));
    } else {
      for (const [name, child] of Object.entries(current)) {
        stack.push({ value: child, path: item.path === "" ? name : `${item.path}.${name}`, depth: item.depth + 1 });
      }
    }
  }
  return undefined;
}
