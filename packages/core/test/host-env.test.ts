import { afterEach, describe, expect, it, vi } from "vitest";
import { readHostEnv } from "../src/execute/host-env.js";

describe("readHostEnv", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads process.env where there is one, as a copy", () => {
    process.env.CODECALL_HOST_ENV_PROBE = "probe-value";
    const env = readHostEnv();
    delete process.env.CODECALL_HOST_ENV_PROBE;
    expect(env.CODECALL_HOST_ENV_PROBE).toBe("probe-value");
  });

  it("reads Deno.env on Deno, and nothing when it is denied or absent", () => {
    vi.stubGlobal("process", undefined);
    vi.stubGlobal("Deno", { env: { toObject: () => ({ FROM_DENO: "1" }) } });
    expect(readHostEnv()).toEqual({ FROM_DENO: "1" });
    vi.stubGlobal("Deno", {
      env: {
        toObject: () => {
          throw new Error("Requires env access");
        },
      },
    });
    expect(readHostEnv()).toEqual({});
    vi.stubGlobal("Deno", undefined);
    expect(readHostEnv()).toEqual({});
  });
});
