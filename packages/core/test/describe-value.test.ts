import { describe, expect, it } from "vitest";
import { describeValue } from "../src/text/describe-value.js";

describe("describeValue", () => {
  it("writes JSON-like text for plain data", () => {
    expect(describeValue({ text: "hi", n: 1.5, ok: true, none: null, list: [1, "two"] })).toBe(
      '{"text":"hi","n":1.5,"ok":true,"none":null,"list":[1,"two"]}',
    );
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue(Number.NaN)).toBe("NaN");
    expect(describeValue(7n)).toBe("7n");
    expect(describeValue(Symbol("s"))).toBe("Symbol(s)");
    expect(describeValue(function named() {})).toBe("[Function named]");
  });

  it("cuts at maxLength with an ellipsis", () => {
    expect(describeValue({ text: "x".repeat(500) }, { maxLength: 20 })).toBe('{"text":"xxxxxxxxxxx…');
    expect(describeValue("x".repeat(10_000_000), { maxLength: 10 })).toBe('"xxxxxxxxx…');
  });

  it("stops at maxDepth and marks cycles", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(describeValue(deep, { maxDepth: 3 })).toBe("[[[[…]]]]");
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(describeValue(cyclic)).toBe('{"a":1,"self":[Circular]}');
    const shared = { x: 1 };
    expect(describeValue([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  it("costs no more than its output on huge values", () => {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    expect(describeValue(sparse, { maxLength: 30 })).toMatch(/^\[undefined,undefined,.*…$/);
  });

  it("never throws, whatever the value does", () => {
    const boom = () => {
      throw new Error("boom");
    };
    const trap = new Proxy([], { get: boom, ownKeys: boom, getPrototypeOf: boom, getOwnPropertyDescriptor: boom });
    expect(describeValue(trap)).toBe("[]");
    expect(describeValue(new Proxy({}, { ownKeys: boom }))).toBe("[unreadable object]");
    expect(
      describeValue({
        toJSON: boom,
        toString: boom,
        get value() {
          return boom();
        },
      }),
    ).toBe('{"toJSON":[Function boom],"toString":[Function boom],"value":[unreadable]}');
    expect(describeValue(Object.create(null))).toBe("{}");
    expect(describeValue(new Proxy(() => 1, { get: boom }))).toBe("[Function]");
  });
});
