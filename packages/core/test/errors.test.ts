import { describe, expect, it } from "vitest";
import { CodecallError, errorMessage } from "../src/errors.js";

describe("CodecallError", () => {
  it("carries a code, message, cause and details", () => {
    const cause = new Error("root");
    const error = new CodecallError("FILE_NOT_FOUND", "no such file: /x", { cause, details: { path: "/x" } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CodecallError");
    expect(error.code).toBe("FILE_NOT_FOUND");
    expect(error.message).toBe("no such file: /x");
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({ path: "/x" });
    const bare = new CodecallError("INVALID_PATH", "bad");
    expect(bare.details).toEqual({});
    expect("cause" in bare).toBe(false);
  });

  it("isInstance recognises codecall errors, optionally by code", () => {
    const error = new CodecallError("INVALID_TOOL", "x");
    expect(CodecallError.isInstance(error)).toBe(true);
    expect(CodecallError.isInstance(error, "INVALID_TOOL")).toBe(true);
    expect(CodecallError.isInstance(error, "UNKNOWN_BACKEND")).toBe(false);
  });

  it("isInstance recognises an error from a second copy of the package", () => {
    // What another installed copy's class produces: same global symbol, different class.
    class OtherCopyError extends Error {
      readonly code = "ENVIRONMENT_CLOSED";
      constructor(message: string) {
        super(message);
        Object.defineProperty(this, Symbol.for("codecall.error"), { value: true });
      }
    }
    const foreign = new OtherCopyError("closed");
    expect(foreign instanceof CodecallError).toBe(false);
    expect(CodecallError.isInstance(foreign)).toBe(true);
    expect(CodecallError.isInstance(foreign, "ENVIRONMENT_CLOSED")).toBe(true);
    expect(CodecallError.isInstance(foreign, "FILE_NOT_FOUND")).toBe(false);
    expect(CodecallError.isInstance({ [Symbol.for("codecall.error")]: true, code: "TRANSPORT_FAILED" }, "TRANSPORT_FAILED")).toBe(true);
  });

  it("isInstance rejects everything else", () => {
    expect(CodecallError.isInstance(new Error("x"))).toBe(false);
    expect(CodecallError.isInstance({ code: "INVALID_TOOL", name: "CodecallError" })).toBe(false);
    expect(CodecallError.isInstance({ [Symbol("codecall.error")]: true })).toBe(false);
    expect(CodecallError.isInstance(null)).toBe(false);
    expect(CodecallError.isInstance(undefined)).toBe(false);
    expect(CodecallError.isInstance("CodecallError")).toBe(false);
  });
});

describe("errorMessage", () => {
  it("reads messages from any thrown value without throwing", () => {
    expect(errorMessage(new TypeError("bad type"))).toBe("bad type");
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage({ reason: 1 })).toBe('{"reason":1}');
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage(42)).toBe("42");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(errorMessage(circular)).toBe('{"self":[Circular]}');
    expect(errorMessage(10n)).toBe("10");
  });

  const throwing = () => {
    throw new Error("boom");
  };
  const hostile: [string, unknown, string | RegExp][] = [
    [
      "an Error whose message getter throws",
      Object.defineProperty(new Error(), "message", { get: throwing }),
      "an error that cannot be read (reading its message threw)",
    ],
    [
      "a Proxy whose every trap throws",
      new Proxy({}, { getPrototypeOf: throwing, get: throwing, ownKeys: throwing, has: throwing }),
      "an error that cannot be read (reading its message threw)",
    ],
    ["a Proxy of an Error", new Proxy(new Error("inner"), {}), "inner"],
    [
      "an object with throwing toString and toJSON",
      { toString: throwing, toJSON: throwing, code: 7 },
      /^\{"toString":\[Function.*\],"toJSON":\[Function.*\],"code":7\}$/,
    ],
    ["an object with a throwing getter", Object.defineProperty({ a: 1 }, "b", { get: throwing, enumerable: true }), '{"a":1,"b":[unreadable]}'],
    ["a null-prototype object", Object.assign(Object.create(null), { reason: "x" }), '{"reason":"x"}'],
    ["a Symbol", Symbol("why"), "Symbol(why)"],
    ["a BigInt", 12n, "12"],
    [
      "a function with a throwing toString",
      Object.assign(() => 1, { toString: throwing }),
      "an error that cannot be read (reading its message threw)",
    ],
    ["an Error whose message is not a string", Object.assign(new Error(), { message: { code: 1 } }), '{"code":1}'],
  ];
  it.each(hostile)("never throws for %s", (_, value, expected) => {
    const message = errorMessage(value);
    if (typeof expected === "string") expect(message).toBe(expected);
    else expect(message).toMatch(expected);
  });

  it("describes a huge or deeply nested value in bounded space", () => {
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(errorMessage(deep)).toBe("[[[[[[[…]]]]]]]");
    const wide = { items: Array.from({ length: 1_000_000 }, (_, index) => index) };
    expect(errorMessage(wide).length).toBeLessThanOrEqual(2_001);
  });
});
