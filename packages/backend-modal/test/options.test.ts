import { describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { environmentOptions, ModalEnvironment, parseModalOptions } from "../src/index.js";

/** The INVALID_OPTIONS message `parseModalOptions(raw)` throws. */
function refusal(raw: unknown): string {
  try {
    parseModalOptions(raw);
  } catch (error) {
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("the options were accepted");
}

describe("modal options", () => {
  it("defaults to a python image, an hour of lifetime, the codecall app and the environment agent", () => {
    expect(parseModalOptions({})).toEqual({
      appName: "codecall",
      image: "python:3.13-slim",
      lifetimeMs: 3_600_000,
      env: {},
      blockNetwork: false,
      tags: {},
      agent: true,
    });
  });

  it("reads -o pairs by the declared types", () => {
    const input = environmentOptions.fromText([
      ["cpu", "0.25"],
      ["memoryMiB", "1024"],
      ["regions", "us-east-1"],
      ["regions", "eu-west-1"],
      ["tags.team", "agents"],
      ["env.MODE", "test"],
      ["lifetimeMs", "600000"],
      ["blockNetwork", "true"],
    ]);
    expect(parseModalOptions(input)).toMatchObject({
      cpu: 0.25,
      memoryMiB: 1024,
      regions: ["us-east-1", "eu-west-1"],
      tags: { team: "agents" },
      env: { MODE: "test" },
      lifetimeMs: 600_000,
      blockNetwork: true,
    });
  });

  it.each([
    [{ lifetimeMs: 1500 }, "modal option lifetimeMs must be whole seconds (a multiple of 1000), got 1500"],
    [{ lifetimeMs: 25 * 3_600_000 }, "modal option lifetimeMs"],
    [{ idleTimeoutMs: 2500 }, "modal option idleTimeoutMs must be whole seconds (a multiple of 1000), got 2500"],
    [{ workdir: "relative/dir" }, "modal option workdir must be an absolute path inside the sandbox"],
    [{ cpu: 0 }, "modal option cpu must be a positive number of cores, got 0"],
    [{ sandboxId: "sb-1", sandboxName: "box" }, "The modal backend attaches to one sandbox: give sandboxId or sandboxName, not both"],
    [{ sandboxId: "sb-1", cpu: 2 }, "modal option cpu shapes a sandbox this backend creates; it cannot be given with sandboxId"],
    [
      { sandboxName: "box", blockNetwork: true },
      "modal option blockNetwork shapes a sandbox this backend creates; it cannot be given with sandboxName",
    ],
    [{ blockNetwork: true, cidrAllowlist: ["10.0.0.0/8"] }, "modal option cidrAllowlist cannot be given with blockNetwork"],
    [{ tokenId: "ak-1" }, "modal option tokenSecret must be given together with the other half of the token"],
    [{ imgae: "python:3.12" }, 'Unknown modal option "imgae"'],
  ])("refuses %j", (raw, message) => {
    expect(refusal(raw)).toContain(message);
  });

  it("never quotes the token secret, and the environment is refused before anything is sent", () => {
    const message = refusal({ tokenSecret: "as-SECRET-never-shown-4e1f" });
    expect(message).not.toContain("as-SECRET-never-shown");
    expect(() => new ModalEnvironment({ workdir: "nope" })).toThrow(/must be an absolute path/);
  });
});
