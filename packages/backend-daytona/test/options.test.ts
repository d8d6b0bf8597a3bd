import { describe, expect, it } from "vitest";
import { environmentOptions, parseDaytonaOptions } from "../src/index.js";

describe("daytona options", () => {
  it("applies defaults that leave nothing behind: a stopped sandbox is deleted", () => {
    expect(parseDaytonaOptions({})).toEqual({
      labels: {},
      autoStopInterval: 15,
      ephemeral: true,
      networkBlockAll: false,
      networkAllowList: [],
      env: {},
      startTimeoutMs: 120_000,
      livenessIntervalMs: 3_000,
      agent: true,
    });
  });

  it("reads -o pairs by the declared types", () => {
    const input = environmentOptions.fromText([
      ["image", "python:3.12-slim"],
      ["cpu", "2"],
      ["labels.team", "agents"],
      ["networkAllowList", "10.0.0.0/8"],
      ["networkAllowList", "192.168.1.0/24"],
      ["env.MODE", "1"],
      ["ephemeral", "false"],
    ]);
    expect(parseDaytonaOptions(input)).toMatchObject({
      image: "python:3.12-slim",
      cpu: 2,
      labels: { team: "agents" },
      networkAllowList: ["10.0.0.0/8", "192.168.1.0/24"],
      env: { MODE: "1" },
      ephemeral: false,
    });
  });

  it("refuses what cannot work, naming the option and never a secret's value", () => {
    const problems: [unknown, RegExp][] = [
      [{ image: "a", snapshot: "b" }, /give `image` or `snapshot`, not both/],
      [{ sandbox: "s", image: "a", cpu: 2 }, /`image`, `cpu` shape a new sandbox; they cannot be given with `sandbox`/],
      [{ snapshot: "s", memory: 4 }, /`cpu`, `memory` and `disk` need `image`/],
      [{ networkAllowList: ["10.0.0.0/8", "10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32", "10.0.0.4/32", "10.0.0.5/32"] }, /at most 5/],
      [{ networkAllowList: ["example.com"] }, /option networkAllowList wants IPv4 CIDR ranges like 10.0.0.0\/8, got "example.com"/],
      [{ workdir: "work" }, /option workdir must be an absolute path/],
      [{ apikey: "x" }, /^Unknown daytona option "apikey"\. Did you mean "apiKey"\?/],
      [{ autoStopInterval: -1 }, /option autoStopInterval must be a whole number from 0 up/],
      [{ livenessIntervalMs: 10 }, /option livenessIntervalMs must be a whole number from 100/],
      [{ env: { "A-B": "1" } }, /option env has an invalid variable name/],
    ];
    for (const [options, message] of problems) expect(() => parseDaytonaOptions(options), JSON.stringify(options)).toThrow(message);
    const secret = (() => {
      try {
        parseDaytonaOptions({ apiKey: { key: "dtn_secret_value" } });
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    })();
    expect(secret).toMatch(/option apiKey/);
    expect(secret).not.toContain("dtn_secret_value");
  });

  it("prints help without the API key's value", () => {
    expect(environmentOptions.help()).toContain("apiKey");
    expect(environmentOptions.help()).toMatch(/string, secret/);
  });
});
