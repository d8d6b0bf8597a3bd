import { describe, expect, it } from "vitest";
import { measureJson } from "../src/protocol/json-measure.js";

describe("measureJson", () => {
  it.each([
    ["1", 0],
    ['"[[["', 0],
    ["[]", 1],
    ['{"a":[{"b":[]}]}', 4],
    ['["\\"]]]", [[]]]', 3],
    ['["\\\\", [[]]]', 3],
  ])("measures the depth of %s as %i", (text, depth) => {
    expect(measureJson(text).depth).toBe(depth);
  });

  it("counts UTF-8 bytes like TextEncoder", () => {
    for (const value of ["plain", "é✓", "😀 emoji", "lone \ud800 surrogate", "\u0000\u007f\u0080\u07ff\u0800\uffff"]) {
      const text = JSON.stringify({ value });
      expect(measureJson(text).bytes).toBe(new TextEncoder().encode(text).length);
    }
  });

  it("measures 100 000 levels without recursion", () => {
    const text = "[".repeat(100_000) + "]".repeat(100_000);
    expect(measureJson(text)).toEqual({ depth: 100_000, bytes: 200_000 });
  });
});
