import { describe, expect, it } from "vitest";
import { constantTimeEqual } from "../src/rpc/constant-time.js";

describe("constantTimeEqual", () => {
  it("is true only for identical strings", () => {
    expect(constantTimeEqual("secret-token", "secret-token")).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("secret-tokeN", "secret-token")).toBe(false);
    expect(constantTimeEqual("Xecret-token", "secret-token")).toBe(false);
  });

  it("is false for prefixes, extensions and empty candidates", () => {
    expect(constantTimeEqual("secret", "secret-token")).toBe(false);
    expect(constantTimeEqual("secret-token-and-more", "secret-token")).toBe(false);
    expect(constantTimeEqual("", "secret-token")).toBe(false);
    expect(constantTimeEqual("x", "")).toBe(false);
  });

  it("is not fooled by NUL characters standing in for missing ones", () => {
    // charCodeAt past the end counts as 0; the length check must still tell these apart.
    expect(constantTimeEqual("ab", "ab\u0000")).toBe(false);
    expect(constantTimeEqual("ab\u0000", "ab")).toBe(false);
  });

  it("compares UTF-16 code units exactly", () => {
    expect(constantTimeEqual("tök€n😀", "tök€n😀")).toBe(true);
    expect(constantTimeEqual("tök€n😀", "tök€n😁")).toBe(false);
  });
});
