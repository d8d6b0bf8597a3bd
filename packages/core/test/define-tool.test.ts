/**
 * defineTool at run time: a JSON Schema literal passes through untouched; a Standard Schema (zod 4,
 * valibot) becomes its input JSON Schema (defaulted fields optional, so the stub makes them
 * keyword arguments) and validates every call itself, so its defaults and transforms reach
 * `execute`. Calls go through the real dispatcher, as a script's would.
 */
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodecallError } from "../src/errors.js";
import { defineTool } from "../src/define-tool.js";
import { describePythonSignatures } from "../src/guest/python-stub.js";
import { checkToolSet } from "../src/tool-set.js";
import { call, makeDispatcher, openConnection, send } from "./support/rpc.js";

describe("defineTool with a JSON Schema", () => {
  it("returns the definition itself", () => {
    const definition = {
      name: "echo",
      description: "Echo.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: ({ text }: { text: string }) => text,
    } as const;
    expect(defineTool(definition)).toBe(definition);
  });
});

describe("defineTool with zod 4", () => {
  const seen: unknown[] = [];
  const search = defineTool({
    name: "search",
    description: "Searches the tickets.",
    parameters: z.object({
      query: z.string().min(1).describe("What to look for."),
      limit: z.number().int().max(100).default(10),
      since: z.iso.date().transform((text) => new Date(`${text}T00:00:00Z`)),
      tags: z.array(z.string()).optional(),
    }),
    execute: (args) => {
      seen.push(args);
      return { query: args.query, limit: args.limit, year: args.since.getUTCFullYear() };
    },
  });

  it("describes the input side: a defaulted field is optional and keeps its default", () => {
    expect(search.parameters).toMatchObject({
      type: "object",
      required: ["query", "since"],
      properties: { query: { type: "string", description: "What to look for." }, limit: { type: "integer", default: 10 } },
    });
    expect(() => checkToolSet([search])).not.toThrow();
    expect(describePythonSignatures([search])).toEqual([
      "search(query: str, since: str, limit: int = 10, tags: list | None = None) -> Any: Searches the tickets.",
    ]);
  });

  it("runs execute with zod's output: the default filled in, the transform applied", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [search] }));
    const response = await send(connection, call(1, "search", { query: "login", since: "2024-03-01" }));
    expect(response.result).toEqual({ query: "login", limit: 10, year: 2024 });
    expect(seen.at(-1)).toEqual({ query: "login", limit: 10, since: new Date("2024-03-01T00:00:00Z") });
  });

  it("refuses arguments that only zod's own checks catch, naming the argument, without running execute", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [search] }));
    const before = seen.length;
    const response = await send(connection, call(2, "search", { query: "x", since: "not a date" }));
    expect(response.error?.message).toMatch(/^Invalid arguments: 'since' .*date/i);
    expect(seen).toHaveLength(before);
  });

  it("enforces the bounds the JSON Schema carries with codecall's own validator", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [search] }));
    const response = await send(connection, call(3, "search", { query: "x", since: "2024-01-01", limit: 1000 }));
    expect(response.error?.message).toMatch(/^Invalid arguments: 'limit'/);
  });

  it("refuses a schema zod cannot express as JSON Schema, or one that is not an object", () => {
    const dated = () =>
      defineTool({ name: "dated", description: "Dated.", parameters: z.object({ at: z.date() }), execute: ({ at }) => at.getTime() });
    expect(dated).toThrow(CodecallError);
    expect(dated).toThrow(/Tool dated: its zod parameters schema cannot be converted to JSON Schema: .*Date/);
    const scalar = () => defineTool({ name: "scalar", description: "Scalar.", parameters: z.string(), execute: (text) => text });
    expect(scalar).toThrow(/Tool scalar: its zod parameters schema must describe an object .*not type "string"/);
  });
});

describe("defineTool with valibot", () => {
  const schema = v.object({ city: v.pipe(v.string(), v.minLength(2)), days: v.optional(v.number(), 1) });

  it("works through toStandardJsonSchema: days is optional with its default", async () => {
    const forecast = defineTool({
      name: "forecast",
      description: "Forecast.",
      parameters: toStandardJsonSchema(schema),
      execute: ({ city, days }) => `${city} for ${days} day(s)`,
    });
    expect(describePythonSignatures([forecast])).toEqual(["forecast(city: str, days: float = 1) -> Any: Forecast."]);
    const connection = await openConnection(makeDispatcher({ tools: [forecast] }));
    expect((await send(connection, call(1, "forecast", { city: "Oslo" }))).result).toBe("Oslo for 1 day(s)");
    expect((await send(connection, call(2, "forecast", { city: "O" }))).error?.message).toMatch(/^Invalid arguments: 'city' .*2/);
  });

  it("refuses a plain valibot schema, saying how to make it describe itself", () => {
    expect(() => defineTool({ name: "plain", description: "Plain.", parameters: schema, execute: ({ city }) => city })).toThrow(
      /Tool plain: its parameters are a valibot schema that cannot describe itself as JSON Schema .*toStandardJsonSchema/,
    );
  });
});
