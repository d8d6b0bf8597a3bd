import { describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { environmentOptions, resolveSshOptions, type SshEnvironmentOptions } from "../src/ssh-options.js";

const base = { host: "example.com", privateKeyPath: "/keys/id", knownHostsPath: "/kh" };
const failure = (options: unknown): CodecallError => {
  try {
    resolveSshOptions(options as SshEnvironmentOptions);
  } catch (error) {
    if (CodecallError.isInstance(error, "INVALID_OPTIONS")) return error;
    throw error;
  }
  throw new Error("expected INVALID_OPTIONS");
};

describe("ssh options", () => {
  it("applies the documented defaults", () => {
    const resolved = resolveSshOptions({ host: "example.com", privateKeyPath: "/keys/id" });
    expect(resolved).toMatchObject({
      port: 22,
      connectTimeoutMs: 20_000,
      keepaliveIntervalMs: 10_000,
      keepaliveCountMax: 3,
      maxChannels: 8,
      sftp: true,
      env: {},
      hostKeys: { kind: "known-hosts" },
    });
    expect((resolved.hostKeys as { path: string }).path).toMatch(/\.ssh\/known_hosts$/);
  });

  it("takes CLI-typed values: numbers for strings and numeric strings for numbers", () => {
    const resolved = resolveSshOptions({ ...base, port: "2222", passphrase: 1234, env: { N: 5 } } as unknown as SshEnvironmentOptions);
    expect(resolved.port).toBe(2222);
    expect(resolved.credentials.passphrase).toBe("1234");
    expect(resolved.env).toEqual({ N: "5" });
  });

  it("chooses one host key policy and refuses a mix", () => {
    expect(resolveSshOptions({ host: "h", password: "p", insecureSkipHostKeyCheck: true }).hostKeys).toEqual({ kind: "insecure" });
    const fingerprint = `SHA256:${"A".repeat(43)}`;
    expect(resolveSshOptions({ host: "h", password: "p", hostKeyFingerprint: fingerprint }).hostKeys).toEqual({ kind: "fingerprint", fingerprint });
    expect(failure({ ...base, hostKeyFingerprint: fingerprint }).message).toMatch(/only one of/);
    expect(failure({ host: "h", password: "p", hostKeyFingerprint: "MD5:aa:bb" }).message).toMatch(/SHA256:/);
  });

  it("explains what is missing or wrong, naming the option", () => {
    expect(failure({}).message).toBe("ssh option host is required");
    expect(failure({ host: "h" }).message).toMatch(/no way to log in/);
    expect(failure({ ...base, port: 70_000 }).message).toBe("ssh option port must be a whole number from 1 to 65535");
    // ssh2's own timers would fire at once past 2^31-1 ms.
    expect(failure({ ...base, connectTimeoutMs: 2_200_000_000 }).message).toBe(
      "ssh option connectTimeoutMs must be a whole number from 1 to 2147483647",
    );
    expect(failure({ ...base, hots: "typo" }).message).toMatch(/^Unknown ssh option "hots"\. Did you mean "host"\? Known: host, port, /);
    expect(failure({ ...base, env: { "BAD-NAME": "x" } }).message).toMatch(/invalid variable name/);
    expect(failure({ ...base, privateKey: "k" }).message).toMatch(/not both/);
  });

  it("reads -o pairs by the declared types: a numeric password stays as written", () => {
    const input = environmentOptions.fromText([
      ["host", "h"],
      ["password", "0123"],
      ["port", "2222"],
      ["agent", "false"],
    ]);
    expect(resolveSshOptions(input as SshEnvironmentOptions)).toMatchObject({ port: 2222, credentials: { password: "0123" } });
  });

  it("never quotes a secret in its messages", () => {
    const secret = { toString: () => "TOP-SECRET-VALUE" };
    for (const key of ["password", "passphrase", "privateKey"]) {
      expect(failure({ ...base, [key]: secret }).message).not.toContain("TOP-SECRET");
    }
  });
});
