import { describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { createEnvironment } from "../src/index.js";

const refusal = (options: unknown): string => {
  try {
    createEnvironment(options as never);
  } catch (error) {
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected INVALID_OPTIONS");
};

describe("local backend options", () => {
  it("refuses names it does not know instead of ignoring them, suggesting the closest", () => {
    expect(refusal({ foo: "bar" })).toBe('Unknown local option "foo". Known: cwd, env, shell, tempRoot');
    expect(refusal({ tmpRoot: "/tmp" })).toBe('Unknown local option "tmpRoot". Did you mean "tempRoot"? Known: cwd, env, shell, tempRoot');
  });

  it("refuses values of the wrong type, naming the option", () => {
    expect(refusal({ shell: "" })).toBe("local option shell must be a non-empty string");
    expect(refusal({ env: "PATH=/bin" })).toBe("local option env must be an object of names to values");
  });

  it("takes process.env as it is: undefined values left out, any names", async () => {
    await using environment = createEnvironment({ env: { ...process.env, "ODD.NAME": "kept", GONE: undefined } });
    const env = await environment.defaultEnv();
    expect(env["ODD.NAME"]).toBe("kept");
    expect("GONE" in env).toBe(false);
    expect(env.PATH).toBe(process.env.PATH);
  });
});
