/**
 * Integers a JavaScript number would round: found in the request's text (outside strings), refused
 * with the value named, so a 64-bit id never reaches a tool as another number; everything a
 * double holds exactly, floats and digits in strings pass.
 */
import { describe, expect, it } from "vitest";
import { firstInexactInteger, showInteger } from "../src/protocol/inexact-integers.js";
import type { ToolDefinition } from "../src/tool.js";
import { makeDispatcher, openConnection, send } from "./support/rpc.js";

describe("firstInexactInteger", () => {
  it.each([
    ['{"id":12345678901234567890}', "12345678901234567890"],
    ['{"id":-9007199254740993}', "-9007199254740993"],
    ['{"a":[1,2,{"b":1000000000000000000000000000001}]}', "1000000000000000000000000000001"],
    ['{"s":"\\"12345678901234567890","n":9007199254740993}', "9007199254740993"],
  ])("finds the integer in %s", (text, literal) => {
    expect(firstInexactInteger(text)).toBe(literal);
  });

  it.each([
    '{"id":9007199254740991}',
    '{"id":-9007199254740991}',
    '{"power":1152921504606846976}', // 2^60: a double holds it exactly
    '{"s":"12345678901234567890"}',
    '{"f":12345678901234567890.5,"e":12345678901234567890e3,"g":1e+30}',
    '{"k":"a\\\\","n":1}',
  ])("passes %s", (text) => {
    expect(firstInexactInteger(text)).toBeUndefined();
  });

  it("shows a long literal by its ends and length", () => {
    expect(showInteger("12345678901234567890")).toBe("12345678901234567890");
    expect(showInteger("9".repeat(100))).toBe(`${"9".repeat(20)}…${"9".repeat(10)} (100 digits)`);
  });
});

describe("RpcDispatcher: integers past 2^53", () => {
  it("refuses an argument a double would round, naming it and what it would become; the tool never runs", async () => {
    const seen: unknown[] = [];
    const lookup: ToolDefinition = {
      name: "lookup",
      description: "Looks an id up.",
      parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      execute: (args) => (seen.push(args), "found"),
    };
    const connection = await openConnection(makeDispatcher({ tools: [lookup] }));
    const frame = (id: number, value: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"lookup","arguments":{"id":${value}}}}`;
    const refused = await send(connection, frame(1, "1234567890123456789"));
    expect(refused).toMatchObject({
      id: 1,
      error: {
        code: -32602,
        message:
          "Invalid arguments: the integer 1234567890123456789 cannot reach the tool exactly (the host holds integers exactly up to " +
          "±9007199254740991; it would become 1234567890123456800). Pass it as a string, or as a float if an approximation will do",
      },
    });
    expect(seen).toEqual([]);
    expect((await send(connection, frame(2, "9007199254740991"))).result).toBe("found");
    expect(seen).toEqual([{ id: 9007199254740991 }]);
  });
});
