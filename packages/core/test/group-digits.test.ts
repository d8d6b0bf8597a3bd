import { describe, expect, it } from "vitest";
import { groupDigits } from "../src/text/group-digits.js";

describe("groupDigits", () => {
  it("prints integers as toLocaleString('en-US') does", () => {
    for (const count of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 10_485_760, -1234, Number.MAX_SAFE_INTEGER]) {
      expect(groupDigits(count)).toBe(count.toLocaleString("en-US"));
    }
  });

  it("leaves what is not a safe integer to toLocaleString", () => {
    expect(groupDigits(1234.5)).toBe("1,234.5");
  });
});
