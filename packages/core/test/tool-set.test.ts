/**
 * A tool set a script could not use is refused when it is built — by createCodeTool, by
 * executeCode before it touches the environment or opens a transport — naming the tool, the
 * reason and the rule.
 */
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { z } from "zod";
import { createCodeTool } from "../src/code-tool.js";
import { CodecallError } from "../src/errors.js";
import { executeCode } from "../src/execute/execute-code.js";
import type { JSONSchema } from "../src/schema/json-schema.js";
import { checkToolSet } from "../src/tool-set.js";
import type { ToolDefinition } from "../src/tool.js";
import { recorder } from "./support/recorder.js";

const tool = (name: string, parameters: JSONSchema = { type: "object" }): ToolDefinition => ({
  name,
  description: "",
  parameters,
  execute: () => null,
});

async function refusal(run: () => unknown): Promise<CodecallError> {
  try {
    await run();
  } catch (error) {
    if (CodecallError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("was not refused");
}

const BAD_NAMES = [
  "get-issue",
  "class",
  "import",
  "None",
  "lambda",
  "1st",
  "",
  "with space",
  "_private",
  "__init__",
  "ToolError",
  "call_tool",
  "call_tool_async",
  "annotations",
  "len",
  "print",
  "open",
  "Exception",
  "café",
  "ﬁle",
];

describe("tool names a script cannot import", () => {
  it.each(BAD_NAMES)("createCodeTool refuses %j with the name and the rule", async (name) => {
    const { environment, transport, used } = recorder();
    const error = await refusal(() => createCodeTool({ environment, transport, tools: [tool("fine"), tool(name)] }));
    expect(error.code).toBe("INVALID_TOOL");
    expect(error.message).toContain(`Tool name ${JSON.stringify(name)} is refused`);
    expect(error.message).toContain("The rule: a tool name must be an ASCII Python identifier that starts with a letter");
    expect(used).toEqual([]);
  });

  it.each(BAD_NAMES)("executeCode refuses %j before it touches the environment or a transport", async (name) => {
    const { environment, transport, used } = recorder();
    const error = await refusal(() => executeCode({ code: "print(1)", environment, transport, tools: [tool(name)] }));
    expect(error.code).toBe("INVALID_TOOL");
    expect(error.message).toContain(JSON.stringify(name));
    expect(used).toEqual([]);
  });

  it.each([
    ["a string", "yes"],
    ["a number", 1],
    ["an object", {}],
  ])("refuses needsApproval given as %s", (_, needsApproval) => {
    expect(() => checkToolSet([{ ...tool("write"), needsApproval } as unknown as ToolDefinition])).toThrow(
      /Tool write: needsApproval must be a boolean or a function/,
    );
  });

  it("accepts identifiers, soft keywords included", () => {
    expect(() => checkToolSet(["get_issue", "match", "case", "fetch2", "Search"].map((name) => tool(name)))).not.toThrow();
  });

  it("refuses what would break the module although each name is fine: x beside x_async, colliding parameters", async () => {
    const { environment, transport, used } = recorder();
    await expect(refusal(() => createCodeTool({ environment, transport, tools: [tool("fetch"), tool("fetch_async")] }))).resolves.toMatchObject({
      code: "INVALID_TOOL",
    });
    const clash = tool("clash", { type: "object", properties: { from: {}, from_: {} } });
    await expect(refusal(() => executeCode({ code: "print(1)", environment, transport, tools: [clash] }))).resolves.toMatchObject({
      code: "INVALID_TOOL",
    });
    expect(used).toEqual([]);
  });

  it("refuses a module name Python cannot import, in createCodeTool as in executeCode", async () => {
    const { environment, transport, used } = recorder();
    await expect(refusal(() => createCodeTool({ environment, transport, moduleName: "my-tools" }))).resolves.toMatchObject({
      code: "INVALID_OPTIONS",
    });
    await expect(refusal(() => executeCode({ code: "print(1)", environment, transport, moduleName: "class" }))).resolves.toMatchObject({
      code: "INVALID_OPTIONS",
    });
    expect(used).toEqual([]);
  });
});

describe("tool schemas the validator could not enforce", () => {
  let deep: JSONSchema = { type: "string" };
  for (let level = 0; level < 5_000; level += 1) deep = { type: "object", properties: { x: deep } };

  it.each<[string, JSONSchema, RegExp]>([
    ["a misspelt type", { type: "object", properties: { n: { type: "strin" as never } } }, /'properties\.n\.type'/],
    [
      "a minimum given as a string",
      { type: "object", properties: { n: { type: "integer", minimum: "3" as never } } },
      /'properties\.n\.minimum' must be a number/,
    ],
    ["required given as a string", { type: "object", required: "path" as never }, /'required' must be an array/],
    [
      "a pattern that is not a regular expression",
      { type: "object", properties: { s: { type: "string", pattern: "(" } } },
      /'properties\.s\.pattern' must be a valid regex/,
    ],
    [
      "a remote $ref",
      { type: "object", properties: { s: { $ref: "https://example.com/schemas/s.json" } } },
      /\$ref "https:\/\/example\.com\/schemas\/s\.json" does not resolve.*remote schemas are not fetched/,
    ],
    [
      "a $ref to a missing $defs entry",
      { type: "object", properties: { s: { $ref: "#/$defs/missing" } }, $defs: {} },
      /\$ref "#\/\$defs\/missing" does not resolve/,
    ],
    [
      "$dynamicRef, which is not enforced",
      { type: "object", properties: { s: { $dynamicRef: "#node" } } },
      /'properties\.s\.\$dynamicRef' is not allowed/,
    ],
    ["a schema nested 10 000 levels deep", deep, /nests deeper than 64 levels/],
    ["a root that is a $ref to itself", { $ref: "#" }, /at the root it applies itself to the same value .* so validation would never end/],
    [
      "a property whose $ref points at itself",
      { type: "object", properties: { a: { $ref: "#/properties/a" } } },
      /at #\/properties\/a it applies itself to the same value/,
    ],
    [
      "two $defs whose allOf name each other",
      {
        type: "object",
        properties: { x: { $ref: "#/$defs/a" } },
        $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { anyOf: [{ $ref: "#/$defs/a" }] } },
      },
      /at #\/\$defs\/[ab] it applies itself to the same value/,
    ],
    ["an array instead of a schema", [] as never, /must be a JSON Schema object, got an array/],
  ])("refuses %s when the tool set is built", async (_what, parameters, reason) => {
    const { environment, transport, used } = recorder();
    const error = await refusal(() => createCodeTool({ environment, transport, tools: [tool("lookup", parameters)] }));
    expect(error.code).toBe("INVALID_TOOL");
    expect(error.message).toMatch(/^Tool lookup: its parameters schema is refused: /);
    expect(error.message).toMatch(reason);
    await expect(
      refusal(() => executeCode({ code: "print(1)", environment, transport, tools: [tool("lookup", parameters)] })),
    ).resolves.toMatchObject({ code: "INVALID_TOOL" });
    expect(used).toEqual([]);
  });

  it("accepts zod-style draft-07 schemas with definitions, and 2020-12 ones with $defs, $anchor and $id", () => {
    const draft7: JSONSchema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $ref: "#/definitions/Args",
      definitions: { Args: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    };
    const modern: JSONSchema = {
      $id: "https://example.com/tool",
      type: "object",
      properties: { a: { $ref: "#item" }, b: { $ref: "https://example.com/tool#/$defs/item" } },
      $defs: { item: { $anchor: "item", type: "string", format: "email", title: "annotations pass", "x-vendor": 1 } },
    };
    expect(() => checkToolSet([tool("read", draft7), tool("write", modern)])).not.toThrow();
  });

  it("accepts recursive schemas that descend before they recur: a tree, a zod-style recursive definition", () => {
    const tree: JSONSchema = {
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    };
    const selfRooted: JSONSchema = { type: "object", properties: { next: { anyOf: [{ $ref: "#" }, { type: "null" }] } } };
    expect(() => checkToolSet([tool("walk", tree), tool("chain", selfRooted)])).not.toThrow();
  });
});

describe("a Standard Schema given where a JSON Schema belongs", () => {
  it("is refused with the way to convert it, not read as a JSON Schema", async () => {
    const raw = tool("search", z.object({ query: z.string() }) as unknown as JSONSchema);
    const error = await refusal(() => checkToolSet([raw]));
    expect(error.code).toBe("INVALID_TOOL");
    expect(error.message).toBe(
      "Tool search: its parameters are a zod schema, not a JSON Schema: define the tool with defineTool() from @codecall/core, which converts it",
    );
    const valibot = await refusal(() => checkToolSet([tool("find", v.object({ query: v.string() }) as unknown as JSONSchema)]));
    expect(valibot.message).toMatch(/^Tool find: its parameters are a valibot schema, not a JSON Schema: define the tool with defineTool\(\)/);
  });

  it("accepts the JSON Schema zod generates, though zod hides a ~standard in it", () => {
    expect(() => checkToolSet([tool("search", z.toJSONSchema(z.object({ query: z.string() })) as JSONSchema)])).not.toThrow();
  });
});

describe("a careless tool: one no call could ever reach, refused when the tool set is built", () => {
  it.each<[string, JSONSchema | boolean, RegExp]>([
    ["a string schema", { type: "string" }, /its type is "string", not "object"/],
    ["an array schema", { type: "array", items: { type: "string" } }, /its type is "array", not "object"/],
    ["a nullable string", { type: ["string", "null"] }, /its type is \["string","null"\], not "object"/],
    ["the schema false", false, /it is the schema false, which accepts nothing/],
    ["an anyOf of scalars", { anyOf: [{ type: "string" }, { type: "integer" }] }, /none of its anyOf options accepts an object/],
    ["an allOf with a scalar part", { allOf: [{ type: "object" }, { type: "number" }] }, /an allOf part accepts no object/],
    ["a $ref to a string schema", { $ref: "#/$defs/query", $defs: { query: { type: "string" } } }, /its type is "string"/],
    ["an enum of scalars", { enum: ["a", "b"] }, /its enum lists no object/],
  ])("refuses parameters that are %s, naming the tool and what to write", async (_what, parameters, reason) => {
    const { environment, transport, used } = recorder();
    const error = await refusal(() => createCodeTool({ environment, transport, tools: [tool("lookup", parameters as JSONSchema)] }));
    expect(error.code).toBe("INVALID_TOOL");
    expect(error.message).toMatch(/^Tool lookup: its parameters schema accepts no arguments object: /);
    expect(error.message).toMatch(reason);
    expect(error.message).toContain('The rule: parameters must describe the arguments object, e.g. {"type": "object", "properties": {');
    expect(error.message).toContain('a tool without parameters takes {"type": "object", "properties": {}}');
    await expect(
      refusal(() => executeCode({ code: "print(1)", environment, transport, tools: [tool("lookup", parameters as JSONSchema)] })),
    ).resolves.toMatchObject({ code: "INVALID_TOOL" });
    expect(used).toEqual([]);
  });

  it("accepts every root that takes an object: no type with object keywords, true and {} (no parameters), a nullable object, an anyOf with an object", () => {
    const roots: (JSONSchema | boolean)[] = [
      { properties: { q: { type: "string" } }, required: ["q"] },
      true,
      {},
      { type: ["object", "null"] },
      { anyOf: [{ type: "string" }, { type: "object", properties: { q: {} } }] },
      { $ref: "#/$defs/args", $defs: { args: { type: "object" } } },
    ];
    expect(() => checkToolSet(roots.map((parameters, index) => tool(`t${index}`, parameters as JSONSchema)))).not.toThrow();
  });

  it.each<[string, Partial<ToolDefinition>, string]>([
    ["execute missing", { execute: undefined }, "Tool lookup: execute must be a function (args, context) => result, got undefined"],
    ["execute given as a string", { execute: "fetch" as never }, "Tool lookup: execute must be a function (args, context) => result, got a string"],
    [
      "description missing",
      { description: undefined },
      'Tool lookup: description must be a string (what the tool does, for the model; "" for none), got undefined',
    ],
    ["description given as an object", { description: { en: "Looks up." } as never }, "got an object"],
    [
      "returns given as a type name",
      { returns: "string" as never },
      "Tool lookup: returns must be a JSON Schema object (it documents the result for the model), got a string",
    ],
    ["returns given as a zod schema", { returns: z.object({ n: z.number() }) as never }, "got a zod schema"],
  ])("refuses a tool with %s, where it crashed the build with a TypeError or failed at every call", (_what, change, message) => {
    let caught: unknown;
    try {
      checkToolSet([{ ...tool("lookup"), ...change } as ToolDefinition]);
    } catch (error) {
      caught = error;
    }
    expect(CodecallError.isInstance(caught, "INVALID_TOOL")).toBe(true);
    expect((caught as CodecallError).message).toContain(message);
  });

  it("refuses a required name that is not declared: the stub has no parameter that could send it", () => {
    const typo = tool("search", { type: "object", properties: { query: { type: "string" } }, required: ["querry"] });
    expect(() => checkToolSet([typo])).toThrow(
      'Tool search: its parameters schema requires "querry", which it does not declare under properties, so the stub has no parameter for it: ' +
        'declare it ("querry": {} takes any value) or remove it from required',
    );
    // Declared in an allOf part, as zod and pydantic write it: accepted.
    const split = tool("find", { type: "object", allOf: [{ properties: { query: { type: "string" } } }], required: ["query"] });
    expect(() => checkToolSet([split])).not.toThrow();
  });

  it("refuses a default the stub would send although its own schema refuses it, and accepts those the stub leaves out", () => {
    const wrong = tool("page", { type: "object", properties: { size: { type: "integer", default: "10" } } });
    expect(() => checkToolSet([wrong])).toThrow(
      /^Tool page: the default of parameter "size" \("10"\) is refused by its own schema \('size' must be an integer, got a string \("10"\)\), and the stub would send it with every call that leaves size out/,
    );
    const outOfRange = tool("page", {
      type: "object",
      properties: { size: { $ref: "#/$defs/size", default: 500 } },
      $defs: { size: { type: "integer", maximum: 100 } },
    });
    expect(() => checkToolSet([outOfRange])).toThrow(/the default of parameter "size" \(500\) is refused by its own schema/);
    // null and structured defaults are never sent (the stub writes None and leaves them out).
    const unsent = tool("page", {
      type: "object",
      properties: { size: { type: "integer", default: null }, tags: { type: "array", default: {} }, n: { type: "integer", default: 10 } },
    });
    expect(() => checkToolSet([unsent])).not.toThrow();
  });
});
