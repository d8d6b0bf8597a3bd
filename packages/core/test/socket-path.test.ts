import { describe, expect, it } from "vitest";
import { socketPathTooLong } from "../src/sockets/socket-path.js";

describe("socketPathTooLong", () => {
  it("accepts a path of up to 100 bytes", () => {
    expect(socketPathTooLong("/tmp/codecall-run/rpc.sock")).toBeUndefined();
    expect(socketPathTooLong(`/${"a".repeat(99)}`)).toBeUndefined();
  });

  it("refuses a longer one, saying by how much", () => {
    expect(socketPathTooLong(`/${"a".repeat(100)}`)).toBe("101 of at most 100 bytes");
  });

  it("counts UTF-8 bytes, not characters", () => {
    // 1 + 50 two-byte characters: 51 characters, 101 bytes.
    expect(socketPathTooLong(`/${"é".repeat(50)}`)).toBe("101 of at most 100 bytes");
  });
});
