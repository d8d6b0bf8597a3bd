import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { toPosixEre } from "../src/regex.js";

/** Lines of `input` that the system's `grep -E` selects with `pattern`. */
function grepE(pattern: string, input: string[]): string[] {
  const result = spawnSync("grep", ["-E", "-e", pattern], { input: `${input.join("\n")}\n`, encoding: "utf8" });
  if (result.status !== 0 && result.status !== 1) throw new Error(`grep failed: ${result.stderr}`);
  return result.stdout.split("\n").filter(Boolean);
}

describe("toPosixEre", () => {
  it("rewrites Perl shorthand classes outside brackets", () => {
    expect(toPosixEre("\\d+\\s*\\w\\D\\S\\W")).toBe("[0-9]+[[:space:]]*[[:alnum:]_][^0-9][^[:space:]][^[:alnum:]_]");
  });

  it("splices positive classes into bracket expressions", () => {
    expect(toPosixEre("[\\d.]+")).toBe("[0-9.]+");
    expect(toPosixEre("[^\\s,]")).toBe("[^[:space:],]");
    expect(toPosixEre("[[:alpha:]\\w]")).toBe("[[:alpha:][:alnum:]_]");
  });

  it("leaves other escapes, literal brackets and unbalanced input alone", () => {
    expect(toPosixEre("foo\\(\\)\\.\\\\d")).toBe("foo\\(\\)\\.\\\\d");
    expect(toPosixEre("[]d]\\d")).toBe("[]d][0-9]");
    expect(toPosixEre("a[\\d")).toBe("a[\\d");
    expect(toPosixEre("\\bword\\b")).toBe("\\bword\\b");
  });

  it("produces patterns the system grep -E applies as intended", () => {
    const lines = ["id 42", "no digits", "tab\there", "x_1"];
    expect(grepE(toPosixEre("\\d\\d"), lines)).toEqual(["id 42"]);
    expect(grepE(toPosixEre("^\\w+\\s\\w+$"), lines)).toEqual(["id 42", "no digits", "tab\there"]);
    expect(grepE(toPosixEre("^[\\w]+$"), lines)).toEqual(["x_1"]);
  });
});
