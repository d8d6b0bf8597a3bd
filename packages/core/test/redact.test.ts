import { describe, expect, it } from "vitest";
import { maskSecret, MIN_KNOWN_SECRET_LENGTH, redactPatterns, redactSecrets, SECRET_PATTERNS } from "../src/text/redact.js";

describe("maskSecret", () => {
  it("keeps a head and tail of long secrets and hides short ones", () => {
    expect(maskSecret("sk-abcdefghijklmnopqrstuvwxyz")).toBe("sk-abc...wxyz");
    expect(maskSecret("123456789012345678")).toBe("123456...5678");
    expect(maskSecret("12345678901234567")).toBe("***");
    expect(maskSecret("short")).toBe("***");
  });
});

describe("redactSecrets", () => {
  it.each([
    ["OpenAI", "sk-proj-abcdefghijklmnop1234", "sk-pro...1234"],
    ["Stripe", "sk_live_abcdefghijklmnop1234", "sk_liv...1234"],
    ["GitHub", "ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_ab...0123"],
    ["GitHub PAT", "github_pat_abcdefghijklmnopqrstuvwxyz", "github...wxyz"],
    ["GitLab", "glpat-abcdefghijklmnopqrstu", "glpat-...rstu"],
    ["Slack", "xoxb-1234567890-abcdef", "xoxb-1...cdef"],
    ["Google", "AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSy...rstu"],
    ["AWS", "AKIAIOSFODNN7EXAMPLE", "AKIAIO...MPLE"],
    ["AWS temporary", "ASIAIOSFODNN7EXAMPLE", "ASIAIO...MPLE"],
    ["Hugging Face", "hf_abcdefghijklmnopqrstuvwx", "hf_abc...uvwx"],
  ])("masks %s tokens", (_, token, masked) => {
    expect(redactSecrets(`key=${token} done`)).toBe(`key=${masked} done`);
  });

  it("masks bearer tokens and passwords in URLs", () => {
    expect(redactSecrets("Authorization: Bearer abcdefgh.ijklmnop/xyz")).toBe("Authorization: Bearer abcdef.../xyz");
    expect(redactSecrets("bearer shorttok1")).toBe("bearer ***");
    expect(redactSecrets("db at postgres://app:hunter2@db:5432/x ok")).toBe("db at postgres://app:***@db:5432/x ok");
    expect(redactSecrets("https://user@host/path")).toBe("https://user@host/path");
  });

  it("replaces PEM private key blocks", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----";
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe("before\n[REDACTED PRIVATE KEY]\nafter");
    expect(redactSecrets("-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----")).toContain("abc");
  });

  it("masks every occurrence of known secret values, longest first", () => {
    const secret = "correct-horse-battery-staple";
    const text = `a ${secret} b ${secret}`;
    expect(redactSecrets(text, { knownSecrets: [secret] })).toBe("a correc...aple b correc...aple");
    expect(redactSecrets("xx hunter22 yy", { knownSecrets: ["hunter22", "hunter22"] })).toBe("xx *** yy");
    expect(redactSecrets("prefix-longersecret1", { knownSecrets: ["longersecret1", "prefix-longersecret1"] })).toBe("prefix...ret1");
  });

  it(`ignores known secrets shorter than ${MIN_KNOWN_SECRET_LENGTH} characters`, () => {
    expect(redactSecrets("the value is 1234567", { knownSecrets: ["1234567", ""] })).toBe("the value is 1234567");
  });

  it("leaves ordinary text alone", () => {
    const text = "Skipped 3 tasks; the key insight: ask-for-help. token count 12.";
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets("mask-abcdefghijklmnopqrstuv")).toBe("mask-abcdefghijklmnopqrstuv"); // "sk-" inside a word
  });
});

describe("redactPatterns", () => {
  it("masks exactly the tokens the formats find where no word character precedes them", () => {
    // The reference: the token formats with their condition as a lookbehind (SECRET_PATTERNS).
    const tokens = SECRET_PATTERNS.find((pattern) => pattern.source.includes("AKIA"))!;
    const pieces = ["sk-", "sk_live_", "rk_test_", "ghp_", "github_pat_", "glpat-", "xoxb-", "AIza", "AKIA", "ASIA", "hf_", "npm_", "pypi-"];
    const filler = ["abcdefghij", "KLMNOPQRST", "0123456789", "x", "-", "_", " ", "\n", ".", "=", "é", "\u00a0"];
    let state = 11;
    const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const differ: string[] = [];
    for (let round = 0; round < 2000; round += 1) {
      let text = "";
      while (text.length < 20 + next() * 200)
        text += next() < 0.25 ? pieces[Math.floor(next() * pieces.length)] : filler[Math.floor(next() * filler.length)];
      if (redactPatterns(text) !== text.replace(tokens, (token) => maskSecret(token))) differ.push(text);
    }
    expect(differ).toEqual([]);
  });
});
