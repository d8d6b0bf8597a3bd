import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prepareHostKeyCheck } from "../src/host-key-check.js";
import { findKnownHostKeys, knownHostsName } from "../src/known-hosts.js";

const key = (label: string) => Buffer.from(`key-${label}`).toString("base64");
const hashed = (name: string) => {
  const salt = randomBytes(20);
  return `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(name).digest("base64")}`;
};
const found = (text: string, name: string) =>
  findKnownHostKeys(text, name).map((entry) => `${entry.type}:${entry.key.toString()}${entry.revoked ? ":revoked" : ""}@${entry.line}`);

describe("known_hosts", () => {
  it("names hosts as OpenSSH records them", () => {
    expect(knownHostsName("Example.COM", 22)).toBe("example.com");
    expect(knownHostsName("127.0.0.1", 2222)).toBe("[127.0.0.1]:2222");
  });

  it("finds plain, listed and bracketed entries, and skips comments and other hosts", () => {
    const text = [
      "# comment",
      `example.com ssh-ed25519 ${key("a")} comment`,
      `other.org,example.com ssh-rsa ${key("b")}`,
      `[example.com]:2222 ssh-ed25519 ${key("c")}`,
      `nope.org ssh-ed25519 ${key("d")}`,
      "",
    ].join("\n");
    expect(found(text, "example.com")).toEqual(["ssh-ed25519:key-a@2", "ssh-rsa:key-b@3"]);
    expect(found(text, "[example.com]:2222")).toEqual(["ssh-ed25519:key-c@4"]);
  });

  it("matches hashed names, for the bracketed form too", () => {
    const text = `${hashed("[10.0.0.5]:2200")} ssh-ed25519 ${key("h")}\n${hashed("10.0.0.5")} ssh-ed25519 ${key("p22")}\n`;
    expect(found(text, "[10.0.0.5]:2200")).toEqual(["ssh-ed25519:key-h@1"]);
    expect(found(text, "10.0.0.5")).toEqual(["ssh-ed25519:key-p22@2"]);
    expect(found(text, "10.0.0.6")).toEqual([]);
  });

  it("honours wildcards and negations", () => {
    const text = `*.corp.example,!secret.corp.example ssh-ed25519 ${key("w")}\n`;
    expect(found(text, "build.corp.example")).toEqual(["ssh-ed25519:key-w@1"]);
    expect(found(text, "secret.corp.example")).toEqual([]);
    expect(found(text, "corp.example")).toEqual([]);
  });

  it("marks @revoked keys and skips @cert-authority lines", () => {
    const text = `@revoked * ssh-ed25519 ${key("r")}\n@cert-authority *.example ssh-ed25519 ${key("ca")}\nhost.example ssh-ed25519 ${key("ok")}\n`;
    expect(found(text, "host.example")).toEqual(["ssh-ed25519:key-r:revoked@1", "ssh-ed25519:key-ok@3"]);
  });
});

describe("prepareHostKeyCheck", () => {
  it("offers only the algorithms of key types it knows: a line whose type is an Object member name adds none", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "known-hosts-"));
    const file = path.join(dir, "known_hosts");
    await writeFile(file, "[example.test]:2222 constructor AAAA\n[example.test]:2222 toString AAAA\n[example.test]:2222 ssh-ed25519 AAAA\n");
    try {
      const check = await prepareHostKeyCheck({ kind: "known-hosts", path: file }, "example.test", 2222);
      expect(check.algorithms).toEqual(["ssh-ed25519"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
