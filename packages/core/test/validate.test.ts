import { describe, expect, it } from "vitest";
import type { JSONSchema } from "../src/schema/json-schema.js";
import { MAX_DETAILED_NODES, MAX_UNIQUE_ITEMS_CHECKED, validateAgainstSchema as validate } from "../src/schema/validate.js";

const object = (properties: Record<string, JSONSchema>, extra: Partial<JSONSchema> = {}): JSONSchema => ({
  type: "object",
  properties,
  ...extra,
});

describe("validateAgainstSchema: types", () => {
  it("tells integers from numbers", () => {
    const schema = object({ count: { type: "integer" }, ratio: { type: "number" } });
    expect(validate({ count: 3, ratio: 0.5 }, schema)).toEqual([]);
    expect(validate({ count: 3, ratio: 2 }, schema)).toEqual([]);
    expect(validate({ count: 3.5 }, schema)).toEqual(["'count' must be an integer, got a number"]);
    expect(validate({ count: "3" }, schema)).toEqual(["'count' must be an integer, got a string (\"3\")"]);
  });

  it("rejects non-finite numbers", () => {
    expect(validate(Number.NaN, { type: "number" })).toEqual(["arguments must be a finite number, got NaN"]);
    expect(validate(Number.POSITIVE_INFINITY, { type: "number" })).toHaveLength(1);
  });

  it("handles null, booleans, arrays and objects", () => {
    expect(validate(null, { type: "null" })).toEqual([]);
    expect(validate({ x: null }, object({ x: { type: "string" } }))).toEqual(["'x' must be a string, got null"]);
    expect(validate({ x: null }, object({ x: { type: ["string", "null"] } }))).toEqual([]);
    expect(validate({ x: 1 }, object({ x: { type: ["string", "null"] } }))).toEqual(["'x' must be a string or a null, got the integer 1"]);
    expect(validate({ x: true }, object({ x: { type: "boolean" } }))).toEqual([]);
    expect(validate({ x: "true" }, object({ x: { type: "boolean" } }))).toEqual(["'x' must be a boolean, got a string (\"true\")"]);
    expect(validate({ x: [1] }, object({ x: { type: "object" } }))).toEqual(["'x' must be an object, got an array"]);
    expect(validate({ x: {} }, object({ x: { type: "array" } }))).toEqual(["'x' must be an array, got an object"]);
    expect(validate([], { type: "object" })).toEqual(["arguments must be an object, got an array"]);
  });

  it("checks array items with indexed paths", () => {
    const schema = object({ tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 } });
    expect(validate({ tags: ["a", "b"] }, schema)).toEqual([]);
    expect(validate({ tags: ["a", 2] }, schema)).toEqual(["'tags[1]' must be a string, got the integer 2"]);
    expect(validate({ tags: [] }, schema)).toEqual(["'tags' must have at least 1 items"]);
    expect(validate({ tags: ["a", "b", "c", "d"] }, schema)).toEqual(["'tags' must have at most 3 items"]);
  });

  it("shortens long strings in messages", () => {
    const [issue] = validate("y".repeat(100), { type: "integer" });
    expect(issue).toBe(`arguments must be an integer, got a string ("${"y".repeat(40)}…")`);
  });
});

describe("validateAgainstSchema: objects", () => {
  it("reports missing required arguments by name", () => {
    const schema = object({ path: { type: "string" }, limit: { type: "integer" } }, { required: ["path", "limit"] });
    expect(validate({ path: "a", limit: 1 }, schema)).toEqual([]);
    expect(validate({}, schema)).toEqual(["missing required argument 'path'", "missing required argument 'limit'"]);
  });

  it("rejects unknown arguments when additionalProperties is false, listing the known ones", () => {
    const schema = object({ path: { type: "string" }, mode: { type: "string" } }, { additionalProperties: false });
    expect(validate({ path: "a", bogus: 1 }, schema)).toEqual(["unknown argument 'bogus' (expected: path, mode)"]);
    expect(validate({ x: 1 }, { type: "object", additionalProperties: false })).toEqual(["unknown argument 'x'"]);
    expect(validate({ path: "a", bogus: 1 }, object({ path: { type: "string" } }))).toEqual([]);
  });

  it("validates additional properties against a schema", () => {
    const schema: JSONSchema = { type: "object", additionalProperties: { type: "number" } };
    expect(validate({ a: 1, b: 2.5 }, schema)).toEqual([]);
    expect(validate({ a: "x" }, schema)).toEqual(["'a' must be a number, got a string (\"x\")"]);
  });

  it("names nested paths in messages", () => {
    const schema = object({
      options: object(
        {
          retries: { type: "integer", minimum: 0 },
          headers: { type: "array", items: object({ name: { type: "string" } }, { required: ["name"] }) },
        },
        { required: ["retries"], additionalProperties: false },
      ),
    });
    expect(validate({ options: { retries: 1, headers: [{ name: "a" }] } }, schema)).toEqual([]);
    expect(validate({ options: { retries: -1, headers: [{ name: "a" }, { name: 5 }, {}], extra: true } }, schema)).toEqual([
      "'options.retries' must be >= 0",
      "'options.headers[1].name' must be a string, got the integer 5",
      "missing required argument 'options.headers[2].name'",
      "unknown argument 'options.extra' (expected: retries, headers)",
    ]);
    expect(validate({ options: {} }, schema)).toEqual(["missing required argument 'options.retries'"]);
  });

  it("reports at most 10 issues", () => {
    const properties: Record<string, JSONSchema> = {};
    const value: Record<string, unknown> = {};
    for (let index = 0; index < 20; index += 1) {
      properties[`p${index}`] = { type: "string" };
      value[`p${index}`] = index;
    }
    const issues = validate(value, object(properties));
    expect(issues).toHaveLength(10);
    expect(issues[0]).toBe("'p0' must be a string, got the integer 0");
  });
});

describe("validateAgainstSchema: values", () => {
  it("checks enum and const with deep equality", () => {
    const schema = object({ mode: { enum: ["read", "write"] }, point: { const: { x: 1, y: [2] } } });
    expect(validate({ mode: "read", point: { y: [2], x: 1 } }, schema)).toEqual([]);
    expect(validate({ mode: "append" }, schema)).toEqual(['\'mode\' must be one of "read", "write"']);
    expect(validate({ point: { x: 1, y: [3] } }, schema)).toEqual(['\'point\' must be {"x":1,"y":[2]}']);
    expect(validate({ point: { x: 1 } }, schema)).toHaveLength(1);
    expect(validate({ point: [1, [2]] }, object({ point: { const: { 0: 1, 1: [2] } } }))).toHaveLength(1);
  });

  it("checks minimum, maximum and the exclusive bounds", () => {
    const schema = object({ n: { type: "number", minimum: 1, maximum: 10 }, e: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 5 } });
    expect(validate({ n: 1, e: 0.1 }, schema)).toEqual([]);
    expect(validate({ n: 10, e: 4.9 }, schema)).toEqual([]);
    expect(validate({ n: 0 }, schema)).toEqual(["'n' must be >= 1"]);
    expect(validate({ n: 11 }, schema)).toEqual(["'n' must be <= 10"]);
    expect(validate({ e: 0 }, schema)).toEqual(["'e' must be > 0"]);
    expect(validate({ e: 5 }, schema)).toEqual(["'e' must be < 5"]);
  });

  it("counts string length in characters, and checks patterns", () => {
    const schema = object({ s: { type: "string", minLength: 2, maxLength: 3, pattern: "^[a-z𝄞]+$" } });
    expect(validate({ s: "𝄞𝄞𝄞" }, schema)).toEqual([]); // 3 characters, 6 UTF-16 units
    expect(validate({ s: "a" }, schema)).toEqual(["'s' must have at least 2 characters"]);
    expect(validate({ s: "abcd" }, schema)).toEqual(["'s' must have at most 3 characters"]);
    expect(validate({ s: "AB" }, schema)).toEqual(["'s' must match the pattern ^[a-z𝄞]+$"]);
  });

  it("supports anyOf and oneOf", () => {
    const anyOf = object({ v: { anyOf: [{ type: "string" }, { type: "integer", minimum: 0 }] } });
    expect(validate({ v: "x" }, anyOf)).toEqual([]);
    expect(validate({ v: 3 }, anyOf)).toEqual([]);
    expect(validate({ v: -3 }, anyOf)).toEqual(["'v' does not match any of the allowed shapes"]);

    const oneOf = object({ v: { oneOf: [{ type: "number" }, { type: "integer" }] } });
    expect(validate({ v: 1.5 }, oneOf)).toEqual([]);
    expect(validate({ v: 2 }, oneOf)).toEqual(["'v' does not match exactly one of the allowed shapes"]); // matches both
    expect(validate({ v: "2" }, oneOf)).toEqual(["'v' does not match exactly one of the allowed shapes"]);
  });
});

describe("validateAgainstSchema: inherited names", () => {
  it("treats Object.prototype names as unknown arguments, not as declared ones", () => {
    const schema = object({ path: { type: "string" } }, { additionalProperties: false });
    const args = JSON.parse('{"path":"a","constructor":1,"toString":"x","__proto__":{"y":1}}') as Record<string, unknown>;
    expect(validate(args, schema)).toEqual([
      "unknown argument 'constructor' (expected: path)",
      "unknown argument 'toString' (expected: path)",
      "unknown argument '__proto__' (expected: path)",
    ]);
  });

  it("does not take an inherited member for a required argument", () => {
    const properties: Record<string, JSONSchema> = { constructor: { type: "string" as const } };
    const schema = object(properties, { required: ["constructor"] });
    expect(validate({}, schema)).toEqual(["missing required argument 'constructor'"]);
    expect(validate({ constructor: "x" }, schema)).toEqual([]);
  });
});

describe("validateAgainstSchema: calls without arguments", () => {
  it("gives `{}` the schema's own verdict, every time", () => {
    const needsPath = object({ path: { type: "string" } }, { required: ["path"] });
    const notEmpty: JSONSchema = { type: "object", minProperties: 1 };
    const noArguments = object({}, { additionalProperties: false });
    for (let round = 0; round < 2; round += 1) {
      expect(validate({}, needsPath)).toEqual(["missing required argument 'path'"]);
      expect(validate({}, notEmpty)).toHaveLength(1);
      expect(validate({}, noArguments)).toEqual([]);
    }
    // The verdict on `{}` is not taken for objects that only look empty.
    expect(validate({ extra: 1 }, noArguments)).toHaveLength(1);
    expect(validate(Object.create({ inherited: 1 }), notEmpty)).toHaveLength(1);
  });
});

describe("validateAgainstSchema: large arguments from a hostile guest", () => {
  it("refuses arrays too long to check for unique items, naming the longest, and checks shorter ones", () => {
    const schema = object({ tags: { type: "array", uniqueItems: true }, data: { type: "array" } });
    const long = Array.from({ length: 60_000 }, (_, index) => index);
    // Accepted before, after a pairwise check of 3.6 billion comparisons that held the host's event loop for seconds.
    expect(validate({ tags: long }, schema)).toEqual([
      `'tags' has 60000 items: this tool's schema asks for unique items, which are checked in arrays of at most ${MAX_UNIQUE_ITEMS_CHECKED} items in all`,
    ]);
    const atBound = Array.from({ length: MAX_UNIQUE_ITEMS_CHECKED }, (_, index) => index);
    expect(validate({ tags: atBound }, schema)).toEqual([]);
    expect(validate({ tags: [...atBound.slice(1), 7] }, schema)).toHaveLength(1);
    // Without uniqueItems anywhere in the schema, long arrays cost one pass and pass.
    expect(validate({ data: long }, object({ data: { type: "array", items: { type: "integer" } } }))).toEqual([]);
  });

  it("names the first of a million bad items instead of failing to validate them", () => {
    const schema = object({ tags: { type: "array", items: { type: "string" } } });
    const issues = validate({ tags: Array.from({ length: 1_000_000 }, (_, index) => index) }, schema);
    // Was "arguments nest too deeply to be validated against this schema": a million error units overflowed a spread.
    expect(issues).toEqual(["'tags[0]' must be a string, got the integer 0"]);
  });

  it("reports every problem of arguments up to the detail bound, and paths deep in large ones", () => {
    const schema = object({ rows: { type: "array", items: object({ name: { type: "string" } }) } });
    const rows = (count: number) => Array.from({ length: count }, (_, index) => ({ name: index === 1 || index === count - 1 ? 1 : "n" }));
    expect(validate({ rows: rows(10) }, schema)).toEqual([
      "'rows[1].name' must be a string, got the integer 1",
      "'rows[9].name' must be a string, got the integer 1",
    ]);
    expect(validate({ rows: rows(MAX_DETAILED_NODES) }, schema)).toEqual(["'rows[1].name' must be a string, got the integer 1"]);
    const deep = { rows: [...rows(100_000).map(() => ({ name: "n" })), { name: "n", nested: [[Number.NaN]] }] };
    expect(validate(deep, schema)).toEqual(["'rows[100000].nested[0][0]' must be a finite number, got NaN"]);
  });
});
