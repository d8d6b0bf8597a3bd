// What defineTool infers for execute's arguments, checked by the compiler (vitest --typecheck and
// `tsc -p test`): from a JSON Schema literal, from zod 4 and from valibot. A wrong inference fails
// the test run, and no argument is ever `any`.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTool, type JSONSchema, type JSONSchemaType, type ToolContext, type ToolDefinition } from "../src/index.js";

/** What the search schema below describes. */
interface SearchArgs {
  query: string;
  tags: string[];
  limit?: number;
  sort?: "asc" | "desc";
  near?: { lat: number; lon: number };
  exact?: boolean;
  cursor?: string | null;
}

describe("defineTool with a JSON Schema literal", () => {
  it("types required properties, optional ones, enums, arrays and nested objects", () => {
    const tool = defineTool({
      name: "search",
      description: "Searches.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string" },
          limit: { type: "integer", default: 10 },
          sort: { enum: ["asc", "desc"] },
          tags: { type: "array", items: { type: "string" } },
          near: { type: "object", properties: { lat: { type: "number" }, lon: { type: "number" } }, required: ["lat", "lon"] },
          exact: { type: "boolean" },
          cursor: { type: ["string", "null"] },
        },
        required: ["query", "tags"],
        additionalProperties: false,
      },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<SearchArgs>();
        return args.tags.length;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<SearchArgs, number>>();
  });

  it("reads const, anyOf and oneOf, and maps additionalProperties of an object without properties", () => {
    type Schema = {
      type: "object";
      properties: {
        kind: { const: "point" };
        id: { anyOf: [{ type: "string" }, { type: "integer" }] };
        shape: { oneOf: [{ type: "object"; properties: { r: { type: "number" } }; required: ["r"] }, { type: "null" }] };
        labels: { type: "object"; additionalProperties: { type: "string" } };
      };
      required: ["kind", "id", "shape", "labels"];
    };
    expectTypeOf<JSONSchemaType<Schema>>().toEqualTypeOf<{
      kind: "point";
      id: string | number;
      shape: { r: number } | null;
      labels: Record<string, string>;
    }>();
  });

  it("gives unknown, never any, for what it cannot read", () => {
    defineTool({
      name: "odd",
      description: "Odd schema.",
      parameters: {
        type: "object",
        properties: { ref: { $ref: "#/$defs/x" }, anything: {}, tuple: { type: "array", prefixItems: [{ type: "string" }] } },
        required: ["ref", "anything", "tuple"],
      },
      execute: (args) => {
        expectTypeOf(args.ref).toEqualTypeOf<unknown>();
        expectTypeOf(args.anything).toEqualTypeOf<unknown>();
        expectTypeOf(args.tuple).toEqualTypeOf<unknown[]>();
        return null;
      },
    });
  });

  it("types a schema built at run time as a plain record, not any", () => {
    const runtimeSchema: JSONSchema = { type: "object" };
    defineTool({
      name: "runtime",
      description: "Schema known only at run time.",
      parameters: runtimeSchema,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return null;
      },
    });
  });

  it("refuses an execute whose arguments do not match the schema", () => {
    defineTool({
      name: "mismatch",
      description: "A wrong annotation.",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      // @ts-expect-error -- n is a number, not a string
      execute: ({ n }: { n: string }) => n,
    });
  });

  it("passes the tool context", () => {
    defineTool({
      name: "ctx",
      description: "Uses the context.",
      parameters: { type: "object", properties: {} },
      execute: (_args, context) => {
        expectTypeOf(context).toEqualTypeOf<ToolContext>();
        return context.runId;
      },
    });
  });
});

describe("defineTool with a Standard Schema", () => {
  it("gives execute zod's output (defaults filled in, transforms applied) and takes zod's input", () => {
    const tool = defineTool({
      name: "zod_tool",
      description: "zod.",
      parameters: z.object({
        query: z.string(),
        limit: z.number().int().default(10),
        when: z.string().transform((text) => new Date(text)),
        tags: z.array(z.string()).optional(),
      }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ query: string; limit: number; when: Date; tags?: string[] | undefined }>();
        return args.limit;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<
      ToolDefinition<{ query: string; limit?: number | undefined; when: string; tags?: string[] | undefined }, number>
    >();
  });

  it("gives execute valibot's output", () => {
    defineTool({
      name: "valibot_tool",
      description: "valibot.",
      parameters: toStandardJsonSchema(v.object({ city: v.string(), days: v.optional(v.number(), 1) })),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
        return args.city;
      },
    });
  });
});
