/**
 * Validates tool arguments against the JSON Schema subset tools use, before a tool runs. Small on
 * purpose: the guest's arguments are untrusted, and the messages go back to the model, so they
 * name the argument and say what was expected.
 */
import type { JSONSchema, JSONSchemaTypeName } from "./json-schema.js";

/** At most this many problems are reported at once; the model fixes them one call later anyway. */
const MAX_ISSUES = 10;

/** Returns the problems found, as readable lines; an empty list means the value is valid. */
export function validateAgainstSchema(value: unknown, schema: JSONSchema): string[] {
  const issues: string[] = [];
  check(value, schema, "", issues);
  return issues.slice(0, MAX_ISSUES);
}

function check(value: unknown, schema: JSONSchema, path: string, issues: string[]): void {
  if (issues.length >= MAX_ISSUES) return;
  const where = path === "" ? "arguments" : `'${path}'`;

  if (schema.anyOf || schema.oneOf) {
    const options = (schema.anyOf ?? schema.oneOf)!;
    const matching = options.filter((option) => validateAgainstSchema(value, option).length === 0).length;
    const ok = schema.oneOf ? matching === 1 : matching > 0;
    if (!ok) issues.push(`${where} does not match ${schema.oneOf ? "exactly one" : "any"} of the allowed shapes`);
  }

  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type as JSONSchemaTypeName];
    if (!allowed.some((type) => hasType(value, type))) {
      issues.push(`${where} must be ${allowed.map(article).join(" or ")}, got ${describe(value)}`);
      return;
    }
  }
  if (schema.const !== undefined && !deepEqual(value, schema.const)) {
    issues.push(`${where} must be ${JSON.stringify(schema.const)}`);
  }
  if (schema.enum && !schema.enum.some((option) => deepEqual(value, option))) {
    issues.push(`${where} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`);
  }

  if (typeof value === "string") checkString(value, schema, where, issues);
  else if (typeof value === "number") checkNumber(value, schema, where, issues);
  else if (Array.isArray(value)) checkArray(value, schema, path, issues);
  else if (typeof value === "object" && value !== null) checkObject(value as Record<string, unknown>, schema, path, issues);
}

function checkString(value: string, schema: JSONSchema, where: string, issues: string[]): void {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    issues.push(`${where} must have at least ${schema.minLength} characters`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    issues.push(`${where} must have at most ${schema.maxLength} characters`);
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
    issues.push(`${where} must match the pattern ${schema.pattern}`);
  }
}

function checkNumber(value: number, schema: JSONSchema, where: string, issues: string[]): void {
  if (schema.minimum !== undefined && value < schema.minimum) issues.push(`${where} must be >= ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum) issues.push(`${where} must be <= ${schema.maximum}`);
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) {
    issues.push(`${where} must be > ${schema.exclusiveMinimum}`);
  }
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) {
    issues.push(`${where} must be < ${schema.exclusiveMaximum}`);
  }
}

function checkArray(value: unknown[], schema: JSONSchema, path: string, issues: string[]): void {
  const where = path === "" ? "arguments" : `'${path}'`;
  if (schema.minItems !== undefined && value.length < schema.minItems) issues.push(`${where} must have at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined && value.length > schema.maxItems) issues.push(`${where} must have at most ${schema.maxItems} items`);
  if (schema.items) value.forEach((item, index) => check(item, schema.items!, `${path}[${index}]`, issues));
}

function checkObject(value: Record<string, unknown>, schema: JSONSchema, path: string, issues: string[]): void {
  const properties = schema.properties ?? {};
  // Own properties only: `{"constructor": 1}` must not pass as a declared argument (or a required
  // one be found on Object.prototype).
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name) || value[name] === undefined) issues.push(`missing required argument '${join(path, name)}'`);
  }
  for (const [name, item] of Object.entries(value)) {
    const propertySchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (propertySchema) {
      check(item, propertySchema, join(path, name), issues);
    } else if (schema.additionalProperties === false) {
      const known = Object.keys(properties);
      issues.push(`unknown argument '${join(path, name)}'${known.length ? ` (expected: ${known.join(", ")})` : ""}`);
    } else if (typeof schema.additionalProperties === "object") {
      check(item, schema.additionalProperties, join(path, name), issues);
    }
  }
}

function hasType(value: unknown, type: JSONSchemaTypeName): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && Number.isInteger(value)) return `the integer ${value}`;
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return article(typeof value);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
