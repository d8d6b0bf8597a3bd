import { describe, expect, expectTypeOf, it } from "vitest";
import { defineOptions } from "../src/options/define-options.js";
import type { OptionsInput } from "../src/options/option-types.js";
import { CodecallError } from "../src/errors.js";

const demo = defineOptions("demo", {
  image: { type: "string", description: "what to start from" },
  host: { type: "string", required: true, description: "where" },
  port: { type: "integer", min: 1, max: 65_535, default: 22, description: "TCP port" },
  count: { type: "integer", min: 1, description: "how many" },
  ratio: { type: "number", description: "a share", check: (value) => (value > 0 ? undefined : "must be positive") },
  flag: { type: "boolean", default: false, description: "on or off" },
  list: { type: "list", default: [], description: "paths" },
  env: { type: "env", description: "variables" },
  labels: { type: "map", description: "labels" },
  agent: { type: "boolean|string", description: "true or a socket" },
  password: { type: "string", secret: true, description: "for logins" },
  user: { type: "string", defaultText: "the local user", description: "login name" },
  workdir: {
    type: "string",
    description: "absolute",
    check: (value) => (value.startsWith("/") ? undefined : `must be an absolute path, got ${JSON.stringify(value)}`),
  },
});

const problem = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("no error");
};

describe("defineOptions: parse", () => {
  it("applies defaults, leaves the rest out, and types the result by the declaration", () => {
    const parsed = demo.parse({ host: "h" });
    expect(parsed).toEqual({ host: "h", port: 22, flag: false, list: [] });
    expectTypeOf(parsed.host).toEqualTypeOf<string>();
    expectTypeOf(parsed.port).toEqualTypeOf<number>();
    expectTypeOf(parsed.image).toEqualTypeOf<string | undefined>();
    expectTypeOf(parsed.agent).toEqualTypeOf<string | boolean | undefined>();
    expectTypeOf(parsed.env).toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<OptionsInput<typeof demo.specs>>().toHaveProperty("host").toEqualTypeOf<string>();
    expectTypeOf<OptionsInput<typeof demo.specs>["labels"]>().toEqualTypeOf<Readonly<Record<string, string | undefined>> | undefined>();
  });

  it("hands out a fresh copy of a list default", () => {
    const first = demo.parse({ host: "h" });
    first.list.push("x");
    expect(demo.parse({ host: "h" }).list).toEqual([]);
  });

  it("refuses what is not an object, and missing required options", () => {
    expect(problem(() => demo.parse("x"))).toBe("The demo backend's options must be an object");
    expect(problem(() => demo.parse([1]))).toBe("The demo backend's options must be an object");
    expect(problem(() => demo.parse(undefined))).toBe("demo option host is required");
    expect(problem(() => demo.parse({ host: undefined }))).toBe("demo option host is required");
  });

  it("refuses unknown names, suggesting the closest known one and listing all", () => {
    const known = "Known: image, host, port, count, ratio, flag, list, env, labels, agent, password, user, workdir";
    expect(problem(() => demo.parse({ host: "h", imgae: "x" }))).toBe(`Unknown demo option "imgae". Did you mean "image"? ${known}`);
    expect(problem(() => demo.parse({ host: "h", Port: 1 }))).toBe(`Unknown demo option "Port". Did you mean "port"? ${known}`);
    expect(problem(() => demo.parse({ host: "h", foo: 1 }))).toBe(`Unknown demo option "foo". ${known}`);
    expect(problem(() => demo.parse({ host: "h", hots: 1, zzz: 2 }))).toBe(`Unknown demo options "hots" (did you mean "host"?), "zzz". ${known}`);
    // An unknown name left undefined is as good as absent.
    expect(demo.parse({ host: "h", nothing: undefined })).toEqual(demo.parse({ host: "h" }));
  });

  it("says which option is wrong, in details too, never quoting a secret", () => {
    try {
      demo.parse({ host: "h", port: 0 });
    } catch (error) {
      expect((error as CodecallError).details).toEqual({ option: "port" });
    }
    const secret = { toString: () => "TOP-SECRET" };
    expect(problem(() => demo.parse({ host: "h", password: secret }))).toBe("demo option password must be a non-empty string");
  });

  it("reads strings, taking numbers and booleans as their text", () => {
    expect(demo.parse({ host: 1000, image: true }).host).toBe("1000");
    expect(demo.parse({ host: "h", image: true }).image).toBe("true");
    expect(problem(() => demo.parse({ host: "" }))).toBe("demo option host must be a non-empty string");
    expect(problem(() => demo.parse({ host: {} }))).toBe("demo option host must be a non-empty string");
  });

  it("reads booleans strictly", () => {
    expect(demo.parse({ host: "h", flag: true }).flag).toBe(true);
    expect(problem(() => demo.parse({ host: "h", flag: "yes" }))).toBe("demo option flag must be true or false");
    expect(problem(() => demo.parse({ host: "h", flag: "true" }))).toBe("demo option flag must be true or false");
  });

  it("reads whole numbers in range, numeric strings too", () => {
    expect(demo.parse({ host: "h", port: "2222" }).port).toBe(2222);
    expect(demo.parse({ host: "h", count: 5 }).count).toBe(5);
    expect(problem(() => demo.parse({ host: "h", count: 0 }))).toBe("demo option count must be a whole number from 1 up");
    expect(problem(() => demo.parse({ host: "h", port: 70_000 }))).toBe("demo option port must be a whole number from 1 to 65535");
    expect(problem(() => demo.parse({ host: "h", port: 1.5 }))).toBe("demo option port must be a whole number from 1 to 65535");
    expect(problem(() => demo.parse({ host: "h", port: " " }))).toBe("demo option port must be a whole number from 1 to 65535");
  });

  it("reads numbers, then runs the option's own check", () => {
    expect(demo.parse({ host: "h", ratio: "0.5" }).ratio).toBe(0.5);
    expect(problem(() => demo.parse({ host: "h", ratio: "half" }))).toBe("demo option ratio must be a number");
    expect(problem(() => demo.parse({ host: "h", ratio: 0 }))).toBe("demo option ratio must be positive");
    expect(problem(() => demo.parse({ host: "h", workdir: "rel" }))).toBe('demo option workdir must be an absolute path, got "rel"');
  });

  it("reads lists, one string being a one-element list", () => {
    expect(demo.parse({ host: "h", list: "/a" }).list).toEqual(["/a"]);
    expect(demo.parse({ host: "h", list: ["/a", "/b"] }).list).toEqual(["/a", "/b"]);
    expect(problem(() => demo.parse({ host: "h", list: [1] }))).toBe("demo option list must be a list of non-empty strings");
  });

  it("reads env with checked names, maps with any names, both with values as text", () => {
    expect(demo.parse({ host: "h", env: { A: "1", B: 2, C: true } }).env).toEqual({ A: "1", B: "2", C: "true" });
    expect(problem(() => demo.parse({ host: "h", env: { "BAD-NAME": "1" } }))).toBe('demo option env has an invalid variable name "BAD-NAME"');
    expect(problem(() => demo.parse({ host: "h", env: { A: {} } }))).toBe('demo option env has a non-string value for "A"');
    expect(problem(() => demo.parse({ host: "h", env: [] }))).toBe("demo option env must be an object of variable names to values");
    expect(demo.parse({ host: "h", labels: { "com.example/team": "ml", gone: undefined } }).labels).toEqual({ "com.example/team": "ml" });
    expect(problem(() => demo.parse({ host: "h", labels: "x" }))).toBe("demo option labels must be an object of names to values");
  });

  it("reads true, false or a string where both are allowed", () => {
    expect(demo.parse({ host: "h", agent: true }).agent).toBe(true);
    expect(demo.parse({ host: "h", agent: "/run/agent.sock" }).agent).toBe("/run/agent.sock");
    expect(problem(() => demo.parse({ host: "h", agent: [] }))).toBe("demo option agent must be true, false or a non-empty string");
  });
});

describe("defineOptions: fromText (the CLI's -o pairs)", () => {
  it("reads each value by its declared type, so strings stay as written", () => {
    const input = demo.fromText([
      ["host", "007"],
      ["password", "1e5"],
      ["port", "2222"],
      ["flag", "true"],
      ["agent", "false"],
      ["env.API_URL", "http://x"],
      ["env.DEBUG", "1"],
      ["labels", '{"team":"ml"}'],
      ["list", "/a"],
      ["list", '["/b","/c"]'],
    ]);
    expect(input).toEqual({
      host: "007",
      password: "1e5",
      port: "2222",
      flag: true,
      agent: false,
      env: { API_URL: "http://x", DEBUG: "1" },
      labels: { team: "ml" },
      list: ["/a", "/b", "/c"],
    });
    expect(demo.parse(input)).toMatchObject({ host: "007", password: "1e5", port: 2222, list: ["/a", "/b", "/c"] });
  });

  it("refuses unknown names with the closest known one, and text that fits no value of the type", () => {
    expect(problem(() => demo.fromText([["imgae", "x"]]))).toMatch(/^Unknown demo option "imgae"\. Did you mean "image"\? Known: /);
    expect(problem(() => demo.fromText([["imgae.x", "x"]]))).toMatch(/^Unknown demo option "imgae"\./);
    expect(problem(() => demo.fromText([["port.x", "1"]]))).toBe("demo option port is not a map: write port=VALUE, not port.x=VALUE");
    expect(problem(() => demo.fromText([["env", "A=1"]]))).toBe("demo option env takes env.KEY=VALUE pairs or a JSON object");
    expect(problem(() => demo.fromText([["list", "[not json"]]))).toBe("demo option list takes one item a pair or a JSON list of strings");
    // A boolean written otherwise is left for parse to refuse, with the usual message.
    expect(
      problem(() =>
        demo.parse(
          demo.fromText([
            ["host", "h"],
            ["flag", "yes"],
          ]),
        ),
      ),
    ).toBe("demo option flag must be true or false");
  });
});

describe("defineOptions: help", () => {
  it("describes every option in order, without any secret's value", () => {
    const described = demo.describe();
    expect(described.map((option) => option.name)).toEqual(Object.keys(demo.specs));
    expect(described.find((option) => option.name === "port")).toEqual({
      name: "port",
      type: "integer",
      description: "TCP port",
      default: "22",
      defaultIsValue: true,
      required: false,
      secret: false,
    });
    expect(described.find((option) => option.name === "user")).toMatchObject({ default: "the local user", defaultIsValue: false });
    const withSecretDefault = defineOptions("demo", { token: { type: "string", secret: true, default: "hunter2", description: "an API token" } });
    expect(JSON.stringify(withSecretDefault.describe())).not.toContain("hunter2");
    expect(withSecretDefault.help()).not.toContain("hunter2");
    expect(withSecretDefault.markdownTable()).not.toContain("hunter2");
  });

  it("prints one aligned line an option: name, type, default, description", () => {
    const small = defineOptions("demo", {
      host: { type: "string", required: true, description: "where" },
      port: { type: "integer", default: 22, description: "TCP port" },
      password: { type: "string", secret: true, description: "for logins" },
      env: { type: "env", default: {}, description: "variables" },
    });
    expect(small.help()).toBe(
      [
        "  option    type            default   description",
        "  host      string          required  where",
        "  port      integer         22        TCP port",
        "  password  string, secret  —         for logins",
        "  env       env             {}        variables",
      ].join("\n"),
    );
    expect(small.markdownTable()).toBe(
      [
        "| option | type | default | description |",
        "|---|---|---|---|",
        "| `host` | string | required | where |",
        "| `port` | integer | `22` | TCP port |",
        "| `password` | string, secret | — | for logins |",
        "| `env` | env | `{}` | variables |",
      ].join("\n"),
    );
  });
});
