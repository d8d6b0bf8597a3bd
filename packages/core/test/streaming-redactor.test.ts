import { describe, expect, it } from "vitest";
import { redactSecrets } from "../src/text/redact.js";
import { StreamingRedactor } from "../src/text/streaming-redactor.js";

const SECRET = "hunter2-correct-horse-battery";

/** Streams `chunks` through a fresh redactor and joins what it emitted. */
function stream(chunks: readonly string[], knownSecrets: readonly string[] = []): string {
  const redactor = new StreamingRedactor({ knownSecrets });
  return chunks.map((chunk) => redactor.push(chunk)).join("") + redactor.flush();
}

/** Every way to cut `text` into two chunks. */
function splits(text: string): string[][] {
  return Array.from({ length: text.length + 1 }, (_, at) => [text.slice(0, at), text.slice(at)]);
}

const TOKENS = [
  "sk-proj-abcdefghijklmnop1234",
  "sk_live_abcdefghijklmnop1234",
  "ghp_abcdefghijklmnopqrstuvwxyz0123",
  "github_pat_abcdefghijklmnopqrstuvwxyz",
  "glpat-abcdefghijklmnopqrstu",
  "xoxb-1234567890-abcdef",
  "AIzaSyA1234567890abcdefghijklmnopqrstu",
  "AKIAIOSFODNN7EXAMPLE",
  "hf_abcdefghijklmnopqrstuvwx",
  "npm_abcdefghijklmnopqrstuvwxyz0123456",
  "pypi-abcdefghijklmnopqrstuvwx",
];

describe("StreamingRedactor", () => {
  it("masks a known secret split at every possible chunk boundary", () => {
    const text = `before ${SECRET} middle${SECRET}after\n`;
    for (const chunks of splits(text)) {
      const out = stream(chunks, [SECRET]);
      expect(out).toBe(redactSecrets(text, { knownSecrets: [SECRET] }));
      expect(out).not.toContain("hunter2-c");
    }
  });

  it("masks a known secret split into three chunks anywhere, and one character at a time", () => {
    const text = `x${SECRET}y`;
    const expected = redactSecrets(text, { knownSecrets: [SECRET] });
    for (let i = 0; i <= text.length; i += 1) {
      for (let j = i; j <= text.length; j += 1) {
        expect(stream([text.slice(0, i), text.slice(i, j), text.slice(j)], [SECRET])).toBe(expected);
      }
    }
    expect(stream([...text], [SECRET])).toBe(expected);
  });

  it("masks secrets that overlap or contain one another", () => {
    const secrets = ["abcdefgh12", "gh12345678", "abcdefgh12345678XYZ"];
    const text = "1 abcdefgh12 2 gh12345678 3 abcdefgh12345678XYZ 4 abcdefgh12345678 end";
    const expected = redactSecrets(text, { knownSecrets: secrets });
    for (const chunks of splits(text)) expect(stream(chunks, secrets)).toBe(expected);
    expect(stream([...text], secrets)).toBe(expected);
  });

  it.each(TOKENS)("masks the token %s split at every chunk boundary", (token) => {
    const text = `token=${token} and "${token}"\n`;
    const expected = redactSecrets(text);
    expect(expected).not.toContain(token);
    for (const chunks of splits(text)) expect(stream(chunks)).toBe(expected);
    expect(stream([...text])).toBe(expected);
  });

  it.each([
    ["a bearer header", "Authorization: Bearer abcdefgh.ijklmnop/xyz\nnext"],
    ["a bearer token after a line break", "Bearer\n  abcdefghijklmnopqrstuv done"],
    ["a password in a URL", "db postgres://app:hunter2hunter2@db.internal:5432/prod ok"],
    ["a private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----\ntail"],
    [
      "a certificate (not a secret) before a key",
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nabc def\n-----END PRIVATE KEY-----",
    ],
  ])("masks %s split at every chunk boundary", (_, text) => {
    const expected = redactSecrets(text);
    expect(expected).not.toBe(text);
    for (const chunks of splits(text)) expect(stream(chunks)).toBe(expected);
    expect(stream([...text])).toBe(expected);
  });

  it("emits text without secrets at once, up to the last whitespace", () => {
    const redactor = new StreamingRedactor({ knownSecrets: [SECRET] });
    expect(redactor.push("hello world\npartial")).toBe("hello world\n");
    expect(redactor.push(" more hunt")).toBe("partial more ");
    expect(redactor.push("er2-correct-horse-battery!\n")).toBe("hunter...tery!\n");
    expect(redactor.flush()).toBe("");
  });

  it("holds back a bounded amount, whatever the stream looks like", () => {
    const maxHeldChars = 4096;
    const redactor = new StreamingRedactor({ knownSecrets: [SECRET], maxHeldChars });
    let pushed = 0;
    let emitted = 0;
    for (const piece of ["a".repeat(50_000), "-----BEGIN PRIVATE KEY-----\n" + "b".repeat(50_000), "Bearer " + " ".repeat(50_000)]) {
      for (let at = 0; at < piece.length; at += 1000) {
        const chunk = piece.slice(at, at + 1000);
        pushed += chunk.length;
        emitted += redactor.push(chunk).length;
        expect(pushed - emitted).toBeLessThanOrEqual(maxHeldChars + 1000);
      }
    }
  });

  it("gives what redactSecrets gives for the whole text, for random texts cut at random", () => {
    // A small deterministic PRNG (mulberry32): the same cases every run.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const secrets = [SECRET, "with space inside 1234", "short-ab"];
    const pieces = [
      ...secrets,
      ...TOKENS,
      "hunter2-co",
      "sk-",
      "ghp_abc",
      "Bearer ",
      "Bearer\n",
      "bearer abc.def/ghi=",
      "https://u:p4ssw0rd-long@host/x",
      "https://u:",
      "-----BEGIN PRIVATE KEY-----\nAAA\nBBB\n-----END PRIVATE KEY-----",
      "-----BEGIN ",
      "word",
      "x",
      " ",
      "  ",
      "\n",
      "\t",
      "(",
      '"',
      "=",
      ":",
      "@",
      "/",
      "é",
      "日本",
    ];
    for (let round = 0; round < 400; round += 1) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => pick(pieces)).join("");
      const chunks: string[] = [];
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(random() * 12);
        chunks.push(text.slice(at, at + size));
        at += size;
      }
      expect(stream(chunks, secrets), JSON.stringify(chunks)).toBe(redactSecrets(text, { knownSecrets: secrets }));
    }
  });

  it("turns into plain redaction when the whole text comes in one chunk", () => {
    const text = `${TOKENS.join(" ")} ${SECRET}`;
    expect(stream([text], [SECRET])).toBe(redactSecrets(text, { knownSecrets: [SECRET] }));
  });
});
