import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/execute/output-capture.js";
import { redactSecrets } from "../src/text/redact.js";
import { MIN_SECRET_FRAGMENT } from "../src/text/secret-fragments.js";

const encoder = new TextEncoder();
const LIMIT = 400;

/** What the model would read: the capture of `text`, redacted as `composeResult` does. */
function shown(text: string, knownSecrets: readonly string[]): string {
  const capture = new OutputCapture(LIMIT, { guardSecrets: knownSecrets });
  capture.push(encoder.encode(text));
  const result = capture.finish();
  expect(result.truncated).toBe(true);
  expect(result.capturedBytes + result.omittedBytes).toBe(result.totalBytes);
  return redactSecrets(result.text, { knownSecrets });
}

/** Every piece of `secret` at least `MIN_SECRET_FRAGMENT` long. */
function fragments(secret: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start + MIN_SECRET_FRAGMENT <= secret.length; start += 1) pieces.push(secret.slice(start, start + MIN_SECRET_FRAGMENT));
  return pieces;
}

function expectNoFragment(output: string, secret: string): void {
  for (const piece of fragments(secret)) expect(output, `piece ${piece} of the secret in ${JSON.stringify(output)}`).not.toContain(piece);
}

/** `secret` at every offset around the head cut (at 40 % of the limit) and the tail cut. */
function placements(secret: string): string[] {
  const texts: string[] = [];
  const headCut = LIMIT * 0.4;
  const total = 2000;
  const tailCut = total - LIMIT * 0.6;
  for (const cut of [headCut, tailCut]) {
    for (let offset = -secret.length; offset <= 0; offset += 1) {
      const start = cut + offset;
      texts.push(".".repeat(start) + secret + ".".repeat(total - start - secret.length));
    }
  }
  // With spaces and words around it, too.
  texts.push(`${"word ".repeat(25)}${secret} ${"word ".repeat(200)}`);
  return texts;
}

describe("OutputCapture with guardSecrets", () => {
  const known = "hunter2-correct-horse-battery-staple";
  it("leaves no 8-character piece of a known secret at either cut", () => {
    for (const text of placements(known)) expectNoFragment(shown(text, [known]), known);
  });

  it.each([
    ["a GitHub token", "ghp_abcdefghijklmnopqrstuvwxyz0123"],
    ["an OpenAI key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"],
    ["an AWS key id", "AKIAIOSFODNN7EXAMPLE"],
  ])("leaves no 8-character piece of %s at either cut", (_, token) => {
    for (const text of placements(` ${token} `)) expectNoFragment(shown(text, []), token);
  });

  it("leaves no piece of a URL password or a private key at either cut", () => {
    const url = " postgres://admin:hunter2hunter2hunter2@db.internal/app ";
    for (const text of placements(url)) expectNoFragment(shown(text, []), "hunter2hunter2hunter2");
    const key = "\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n";
    for (const text of placements(key)) expectNoFragment(shown(text, []), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7");
  });

  it("leaves no piece of a bearer token (a long JWT) at either cut", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${"eyJzdWIiOiIxMjM0NTY3ODkwIn0".repeat(2)}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
    for (const text of placements(` Authorization: Bearer ${jwt}\n`)) expectNoFragment(shown(text, []), jwt);
  });

  it("keeps the cut where it was when no secret straddles it", () => {
    for (const text of ["ab ".repeat(800), Array.from({ length: 300 }, (_, index) => `line-${String(index).padStart(6, "0")}`).join("\n")]) {
      const capture = new OutputCapture(LIMIT, { guardSecrets: ["hunter2-correct-horse"] });
      capture.push(encoder.encode(text));
      const result = capture.finish();
      expect(result.capturedBytes).toBe(LIMIT);
      expect(result.text.startsWith(text.slice(0, LIMIT * 0.4))).toBe(true);
      expect(result.text.endsWith(text.slice(-LIMIT * 0.6))).toBe(true);
    }
  });
});
