/**
 * A bound on how deep a value nests, checked without recursion. Validation (and everything else
 * that walks a value) recurses once per level, so a guest that sends 100 000 nested arrays would
 * overflow the stack; the walk here is a loop, and it stops at the first level past the bound.
 * It also measures what validation will cost (nodes, and the quadratic work of `uniqueItems`), in
 * time linear in the value: paths are spelled only for the node that has a problem.
 */

import { DEFAULT_MAX_JSON_DEPTH } from "../protocol/json-measure.js";

/** Deepest nesting accepted in tool arguments and in tool schemas (one limit with the dispatcher's). */
export const MAX_JSON_DEPTH = DEFAULT_MAX_JSON_DEPTH;

/** What {@link jsonShape} found. */
export interface JsonShape {
  /** Why the value cannot be validated as JSON (`path` "" for the value itself), or undefined. */
  problem?: { path: string; problem: string };
  /** Values in it, itself included (counted up to the problem, when there is one). */
  nodes: number;
  /** The sum of the squares of its arrays' lengths: what a pairwise `uniqueItems` check costs. */
  pairwiseWork: number;
  /** Its longest array, when it has one. */
  longestArray?: { path: string; length: number };
}

/** A node on the walk's stack: the path is spelled from these links only when needed. */
interface Step {
  value: unknown;
  depth: number;
  parent: Step | undefined;
  key: string | number;
}

/**
 * Walks `value` once: its {@link JsonShape}. A problem is nesting deeper than `maxDepth`, or a
 * value JSON has no spelling for (undefined, NaN, a function...).
 */
export function jsonShape(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonShape {
  const stack: Step[] = [{ value, depth: 0, parent: undefined, key: "" }];
  const shape: JsonShape = { nodes: 0, pairwiseWork: 0 };
  let longest: Step | undefined;
  while (stack.length > 0) {
    const step = stack.pop()!;
    const current = step.value;
    shape.nodes += 1;
    if (typeof current === "number" && !Number.isFinite(current)) return fail(shape, step, `must be a finite number, got ${current}`);
    if (current === null || typeof current === "string" || typeof current === "number" || typeof current === "boolean") continue;
    if (typeof current !== "object") return fail(shape, step, `is not a JSON value (${typeof current})`);
    if (step.depth >= maxDepth) return fail(shape, step, `nests deeper than ${maxDepth} levels`);
    const depth = step.depth + 1;
    if (Array.isArray(current)) {
      shape.pairwiseWork += current.length * current.length;
      if (longest === undefined || current.length > (longest.value as unknown[]).length) longest = step;
      for (let index = 0; index < current.length; index += 1) stack.push({ value: current[index], depth, parent: step, key: index });
    } else {
      for (const [name, child] of Object.entries(current)) stack.push({ value: child, depth, parent: step, key: name });
    }
  }
  if (longest !== undefined) shape.longestArray = { path: pathOf(longest), length: (longest.value as unknown[]).length };
  return shape;
}

/**
 * Why `value` cannot be validated as JSON, or undefined when it can (see {@link jsonShape}).
 * `path` is the readable location of the first problem ("" for the value itself).
 */
export function jsonShapeProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; problem: string } | undefined {
  return jsonShape(value, maxDepth).problem;
}

function fail(shape: JsonShape, step: Step, problem: string): JsonShape {
  shape.problem = { path: pathOf(step), problem };
  return shape;
}

/** `options.headers[1].name`: "" for the value itself. */
function pathOf(step: Step): string {
  const keys: (string | number)[] = [];
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  let path = "";
  for (const key of keys.reverse()) path = typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
  return path;
}
