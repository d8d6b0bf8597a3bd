import { describe, expect, it } from "vitest";
import { OptionReader } from "../src/backend-kit.js";
import { CodecallError } from "../src/errors.js";

const reader = (raw: unknown) => new OptionReader("demo", raw, ["name", "flag", "count", "list", "env"]);
const problem = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("no error");
};

describe("OptionReader", () => {
  it("refuses what is not an object, and unknown keys, naming them and the known ones", () => {
    expect(problem(() => reader("x"))).toBe("The demo backend's options must be an object");
    expect(problem(() => reader([1]))).toBe("The demo backend's options must be an object");
    expect(problem(() => reader({ nmae: 1, name: "a" }))).toBe('Unknown demo option "nmae". Known: name, flag, count, list, env');
    expect(reader(undefined).string("name")).toBeUndefined();
    expect(reader({ name: undefined }).string("name")).toBeUndefined();
  });

  it("reads strings, taking numbers and booleans as their text", () => {
    expect(reader({ name: "x" }).string("name")).toBe("x");
    expect(reader({ name: 1000 }).string("name")).toBe("1000");
    expect(problem(() => reader({ name: "" }).string("name"))).toBe("demo option name must be a non-empty string");
    expect(problem(() => reader({ name: {} }).string("name"))).toBe("demo option name must be a non-empty string");
  });

  it("reads booleans strictly", () => {
    expect(reader({ flag: false }).boolean("flag")).toBe(false);
    expect(problem(() => reader({ flag: "yes" }).boolean("flag"))).toBe("demo option flag must be true or false");
  });

  it("reads whole numbers in range, numeric strings too", () => {
    expect(reader({ count: 5 }).integer("count", 1)).toBe(5);
    expect(reader({ count: "7" }).integer("count", 1, 10)).toBe(7);
    expect(problem(() => reader({ count: 0 }).integer("count", 1))).toBe("demo option count must be a whole number from 1 up");
    expect(problem(() => reader({ count: 11 }).integer("count", 1, 10))).toBe("demo option count must be a whole number from 1 to 10");
    expect(problem(() => reader({ count: 1.5 }).integer("count"))).toBe("demo option count must be a whole number");
    expect(problem(() => reader({ count: " " }).integer("count"))).toBe("demo option count must be a whole number");
  });

  it("reads lists, one string being a one-element list", () => {
    expect(reader({ list: "/a" }).stringList("list")).toEqual(["/a"]);
    expect(reader({ list: ["/a", "/b"] }).stringList("list")).toEqual(["/a", "/b"]);
    expect(problem(() => reader({ list: [1] }).stringList("list"))).toBe("demo option list must be a list of non-empty strings");
  });

  it("reads env with checked names", () => {
    expect(reader({ env: { A: "1", B: 2, C: true } }).env("env")).toEqual({ A: "1", B: "2", C: "true" });
    expect(problem(() => reader({ env: { "BAD-NAME": "1" } }).env("env"))).toBe('demo option env has an invalid variable name "BAD-NAME"');
    expect(problem(() => reader({ env: { A: {} } }).env("env"))).toBe("demo option env has a non-string value for A");
    expect(problem(() => reader({ env: [] }).env("env"))).toBe("demo option env must be an object of variable names to values");
  });
});
