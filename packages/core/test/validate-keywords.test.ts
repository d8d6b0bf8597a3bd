/**
 * Every keyword of JSON Schema is enforced: each case here passed silently before the validator
 * was complete (zod- and MCP-derived schemas use all of them).
 */
import { describe, expect, it } from "vitest";
import type { JSONSchema } from "../src/schema/json-schema.js";
import { validateAgainstSchema as validate } from "../src/schema/validate.js";

const args = (properties: Record<string, JSONSchema>, extra: Partial<JSONSchema> = {}): JSONSchema => ({ type: "object", properties, ...extra });

describe("validateAgainstSchema: every keyword is enforced", () => {
  it("$ref into $defs (2020-12) and definitions (draft-07, zod-to-json-schema)", () => {
    const modern: JSONSchema = { $defs: { id: { type: "integer", minimum: 1 } }, ...args({ issue: { $ref: "#/$defs/id" } }) };
    expect(validate({ issue: 3 }, modern)).toEqual([]);
    expect(validate({ issue: "3" }, modern)).toEqual(["'issue' must be an integer, got a string (\"3\")"]);
    expect(validate({ issue: 0 }, modern)).toEqual(["'issue' must be >= 1"]);

    const draft7: JSONSchema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $ref: "#/definitions/Args",
      definitions: { Args: args({ path: { type: "string" } }, { required: ["path"], additionalProperties: false }) },
    };
    expect(validate({ path: "a" }, draft7)).toEqual([]);
    expect(validate({}, draft7)).toEqual(["missing required argument 'path'"]);
    expect(validate({ path: "a", x: 1 }, draft7)).toEqual(["unknown argument 'x' (expected: path)"]);
  });

  it("recursive $ref", () => {
    const tree: JSONSchema = {
      $defs: { node: args({ name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }) },
      $ref: "#/$defs/node",
    };
    expect(validate({ name: "a", children: [{ name: "b", children: [] }] }, tree)).toEqual([]);
    expect(validate({ name: "a", children: [{ name: 2 }] }, tree)).toEqual(["'children[0].name' must be a string, got the integer 2"]);
  });

  it("allOf", () => {
    const schema = args({ n: { allOf: [{ type: "integer" }, { minimum: 5 }] } });
    expect(validate({ n: 7 }, schema)).toEqual([]);
    expect(validate({ n: 3 }, schema)).toEqual(["'n' must be >= 5"]);
  });

  it("not", () => {
    const schema = args({ name: { type: "string", not: { const: "root" } } });
    expect(validate({ name: "alice" }, schema)).toEqual([]);
    expect(validate({ name: "root" }, schema)).toEqual(['\'name\' must not match {"const":"root"}']);
  });

  it("if / then / else", () => {
    const schema: JSONSchema = {
      ...args({ kind: { enum: ["file", "url"] }, path: { type: "string" }, url: { type: "string" } }),
      if: { properties: { kind: { const: "file" } } },
      then: { required: ["path"] },
      else: { required: ["url"] },
    };
    expect(validate({ kind: "file", path: "a" }, schema)).toEqual([]);
    expect(validate({ kind: "file" }, schema)).toEqual(["missing required argument 'path'"]);
    expect(validate({ kind: "url" }, schema)).toEqual(["missing required argument 'url'"]);
  });

  it("format", () => {
    const schema = args({
      when: { type: "string", format: "date-time" },
      mail: { type: "string", format: "email" },
      id: { type: "string", format: "uuid" },
    });
    expect(validate({ when: "2024-01-02T03:04:05Z", mail: "a@b.org", id: "123e4567-e89b-12d3-a456-426614174000" }, schema)).toEqual([]);
    expect(validate({ when: "yesterday", mail: "nobody", id: "x" }, schema)).toEqual([
      "'when' must be a valid date-time",
      "'mail' must be a valid email",
      "'id' must be a valid uuid",
    ]);
  });

  it("uniqueItems", () => {
    const schema = args({ tags: { type: "array", uniqueItems: true } });
    expect(validate({ tags: ["a", "b"] }, schema)).toEqual([]);
    expect(validate({ tags: ["a", { x: 1 }, { x: 1 }] }, schema)).toEqual(["'tags' must not contain duplicate items (items 1 and 2 are equal)"]);
  });

  it("multipleOf", () => {
    const schema = args({ step: { type: "number", multipleOf: 0.5 } });
    expect(validate({ step: 1.5 }, schema)).toEqual([]);
    expect(validate({ step: 1.25 }, schema)).toEqual(["'step' must be a multiple of 0.5"]);
  });

  it("patternProperties", () => {
    const schema: JSONSchema = { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false };
    expect(validate({ "x-trace": "on" }, schema)).toEqual([]);
    expect(validate({ "x-trace": 1 }, schema)).toEqual(["'x-trace' must be a string, got the integer 1"]);
    expect(validate({ trace: "on" }, schema)).toEqual(["unknown argument 'trace'"]);
  });

  it("prefixItems (tuples) and items after them", () => {
    const schema = args({ point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false } });
    expect(validate({ point: [1, 2] }, schema)).toEqual([]);
    expect(validate({ point: [1, "2"] }, schema)).toEqual(["'point[1]' must be a number, got a string (\"2\")"]);
    expect(validate({ point: [1, 2, 3] }, schema)).toEqual(["'point[2]' is not allowed here"]);
  });

  it("dependentRequired (and draft-07 dependencies)", () => {
    const schema = args({ user: { type: "string" }, password: { type: "string" } }, { dependentRequired: { user: ["password"] } });
    expect(validate({ user: "a", password: "b" }, schema)).toEqual([]);
    expect(validate({ user: "a" }, schema)).toEqual(["'password' is required when 'user' is given"]);
    const draft7 = args({ user: { type: "string" } }, { $schema: "http://json-schema.org/draft-07/schema#", dependencies: { user: ["password"] } });
    expect(validate({ user: "a" }, draft7)).toEqual(["'password' is required when 'user' is given"]);
  });

  it("minProperties and maxProperties", () => {
    const schema = args({ labels: { type: "object", minProperties: 1, maxProperties: 2 } });
    expect(validate({ labels: { a: 1 } }, schema)).toEqual([]);
    expect(validate({ labels: {} }, schema)).toEqual(["'labels' must have at least 1 property"]);
    expect(validate({ labels: { a: 1, b: 2, c: 3 } }, schema)).toEqual(["'labels' must have at most 2 properties"]);
  });

  it("contains, propertyNames, unevaluatedProperties", () => {
    expect(validate({ xs: [1, 2] }, args({ xs: { type: "array", contains: { const: 3 } } }))).toEqual([
      "'xs' must contain at least 1 item matching {\"const\":3}",
    ]);
    expect(validate({ m: { Bad: 1 } }, args({ m: { type: "object", propertyNames: { pattern: "^[a-z]+$" } } }))).toHaveLength(1);
    const closed: JSONSchema = { allOf: [args({ a: { type: "string" } })], unevaluatedProperties: false };
    expect(validate({ a: "x" }, closed)).toEqual([]);
    expect(validate({ a: "x", b: 1 }, closed)).toEqual(["unknown argument 'b'"]);
  });

  it("draft-04 boolean exclusiveMinimum", () => {
    const schema = args({ n: { type: "number", minimum: 0, exclusiveMinimum: true } }, { $schema: "http://json-schema.org/draft-04/schema#" });
    expect(validate({ n: 1 }, schema)).toEqual([]);
    expect(validate({ n: 0 }, schema)).toEqual(["'n' must be > 0"]);
  });
});

describe("validateAgainstSchema: a schema that cannot be enforced", () => {
  it("fails every value with the reason instead of skipping the schema or throwing", () => {
    expect(validate({ s: "x" }, args({ s: { $ref: "https://example.com/s.json" } }))).toEqual([
      expect.stringMatching(/^the tool's parameters schema cannot be enforced: \$ref "https:\/\/example\.com\/s\.json" does not resolve/),
    ]);
  });
});

describe("validateAgainstSchema: hostile values", () => {
  it("answers a value nested 100 000 levels deep with a clear issue instead of overflowing the stack", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const recursive: JSONSchema = {
      $defs: { any: { anyOf: [{ type: "number" }, { type: "array", items: { $ref: "#/$defs/any" } }] } },
      ...args({ v: { $ref: "#/$defs/any" } }),
    };
    expect(validate({ v: deep }, recursive)).toEqual([expect.stringMatching(/^'v(\[0\])+' nests deeper than 64 levels$/)]);
    expect(validate({ v: deep }, args({ v: { type: "array", uniqueItems: true } }))).toHaveLength(1);
    const parsed = JSON.parse(`{"v":${"[".repeat(100_000)}${"]".repeat(100_000)}}`) as unknown;
    expect(validate(parsed, args({}))).toEqual([expect.stringContaining("nests deeper than 64 levels")]);
  });

  it("accepts nesting up to the bound through a recursive schema", () => {
    let value: unknown = 1;
    for (let level = 0; level < 60; level += 1) value = [value];
    const recursive: JSONSchema = {
      $defs: { any: { anyOf: [{ type: "number" }, { type: "array", items: { $ref: "#/$defs/any" } }] } },
      ...args({ v: { $ref: "#/$defs/any" } }),
    };
    expect(validate({ v: value }, recursive)).toEqual([]);
  });
});
