import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertEnvName, shellExports, shellQuote } from "../src/text/shell-quote.js";

const sh = (script: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) => execFileSync("sh", ["-c", script], { encoding: "utf8", env });

const WEIRD = [
  "",
  " ",
  "plain",
  "two words",
  "it's",
  "'",
  "''",
  '"double"',
  "line one\nline two\n",
  "$HOME ${PATH} $(echo pwned) `echo pwned`",
  "back\\slash\\\\",
  "glob * ? [a-z] ~",
  "semi; rm -rf /; echo && || | & > < ",
  "tab\there",
  "-n",
  "-e \\n",
  "unicode é 世界 😀",
  "!history !!",
  "#not a comment",
  "mixed 'single' \"double\" `tick` $var \\ end'",
];

describe("shellQuote", () => {
  it.each(WEIRD.map((value) => [JSON.stringify(value), value]))("round-trips %s through sh", (_, value) => {
    expect(sh(`printf '%s' ${shellQuote(value)}`)).toBe(value);
  });

  it("round-trips all of them as separate arguments of one command", () => {
    const out = sh(`for arg in ${WEIRD.map(shellQuote).join(" ")}; do printf '<%s>' "$arg"; done`);
    expect(out).toBe(WEIRD.map((value) => `<${value}>`).join(""));
  });

  it("leaves safe words bare and quotes everything else", () => {
    expect(shellQuote("abc-DEF_1.2/x:y,z@w%v+u=t")).toBe("abc-DEF_1.2/x:y,z@w%v+u=t");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});

describe("shellExports", () => {
  it("exports variables that the shell sees exactly", () => {
    const env = { A: "it's $HOME", B_2: "line\nbreak", _C: "" };
    expect(shellExports(env)).toBe("export A='it'\\''s $HOME'; export B_2='line\nbreak'; export _C='';");
    expect(sh(`${shellExports(env)} printf '%s|%s|%s' "$A" "$B_2" "$_C"`, { PATH: process.env.PATH, HOME: "/nowhere" })).toBe(
      "it's $HOME|line\nbreak|",
    );
  });

  it("refuses invalid variable names", () => {
    expect(() => shellExports({ "A;rm -rf /": "x" })).toThrow(TypeError);
  });
});

describe("assertEnvName", () => {
  it.each(["PATH", "_x", "a1_B2"])("accepts %s", (name) => expect(assertEnvName(name)).toBe(name));
  it.each(["", "1A", "A-B", "A B", "A=B", "É"])("rejects %j", (name) => {
    expect(() => assertEnvName(name)).toThrow(`Invalid environment variable name: ${JSON.stringify(name)}`);
  });
});
