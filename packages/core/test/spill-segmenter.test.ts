// The spill file's segmenter, attacked where it must cut without a safe place: a long run with no
// whitespace. Each part is redacted on its own, so a cut inside a known secret would write its two
// pieces unmasked, one after the other: the whole secret, in the file.
import { describe, expect, it } from "vitest";
import { SpillSegmenter } from "../src/execute/spill-segmenter.js";
import { redactSecrets } from "../src/text/redact.js";

const SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789";

function spilled(text: string): string {
  const parts: Uint8Array[] = [];
  const segmenter = new SpillSegmenter(5_000_000, [SECRET], (bytes) => parts.push(bytes.slice()));
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += 1000) segmenter.push(bytes.subarray(offset, offset + 1000));
  segmenter.end();
  return new TextDecoder().decode(Buffer.concat(parts));
}

describe("SpillSegmenter with no whitespace to cut at", () => {
  for (const at of [32_748, 32_760, 32_763, 65_526]) {
    it(`masks a known secret at byte ${at} of a 140 KB run`, () => {
      const file = spilled(`${"x".repeat(at)}${SECRET}${"y".repeat(100_000)}`);
      expect(file).not.toContain(SECRET);
      expect(file).not.toContain(SECRET.slice(4, 30));
      expect(file.length).toBeGreaterThan(100_000);
    });
  }
});

// A limit under the window's size fills the window exactly when the stream reaches the limit. Cut
// there as a full window (at whitespace, or in half), a secret crossing the limit lost its
// beginning to the part written first, and the cut at the limit, seeing only the rest, left its
// piece unmasked.
describe("SpillSegmenter with a secret across a limit smaller than its window", () => {
  function spilledUpTo(limit: number, text: string, chunkBytes: number): { file: string; keptBytes: number } {
    const parts: Uint8Array[] = [];
    const segmenter = new SpillSegmenter(limit, [SECRET], (bytes) => parts.push(bytes.slice()));
    const bytes = new TextEncoder().encode(text);
    for (let offset = 0; offset < bytes.length; offset += chunkBytes) segmenter.push(bytes.subarray(offset, offset + chunkBytes));
    segmenter.end();
    return { file: new TextDecoder().decode(Buffer.concat(parts)), keptBytes: segmenter.keptBytes };
  }

  for (const chunkBytes of [1, 7, 100_000]) {
    it(`leaves no piece of a known value, a bearer token or a URL password (chunks of ${chunkBytes})`, () => {
      // Cut 12 characters into the value: the first half of the window, cut on its own, is its first 6.
      expect(spilledUpTo(12, `${SECRET} tail\n`, chunkBytes)).toEqual({ file: "", keptBytes: 0 });
      // The cut moves back before a token it would split.
      expect(spilledUpTo(18, "Bearer abcdefghijklmnopqrstuvwxyz0123 end\n", chunkBytes)).toEqual({ file: "", keptBytes: 0 });
      expect(spilledUpTo(28, "postgres://user:s3cr3tpw@host/db\n", chunkBytes).file).toBe("postgres://user:***@hos");
    });
  }
});

// Any limit, any chunking: the file is what redacting the bytes it stands for would give, and keeps
// no piece of a known value. Seeded, so a failure names a case that can be replayed.
describe("SpillSegmenter over random output, limits and chunks", () => {
  const secrets = [SECRET, "pa55wordXYZ123"];
  const kinds = [
    `key=${SECRET}`,
    "pa55wordXYZ123",
    // No piece of these is a piece of a known value: a leak found is one of those.
    "Bearer ZYXWVUTSRQPONMLKJIHGFEDCBA9876",
    "postgres://user:s3cr3tpw@host/db",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "é✓🎉",
    " ",
    "\n",
    "x".repeat(50),
  ];
  /** A linear congruential generator: numbers in [0, 1) from `seed`. */
  const random = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x80000000;

  it("writes redactSecrets of the kept bytes, never a piece of a secret", () => {
    const failures: number[] = [];
    for (let seed = 1; seed <= 500; seed += 1) {
      const next = random(seed);
      const pick = () => kinds[Math.floor(next() * kinds.length)]!;
      const bytes = new TextEncoder().encode(Array.from({ length: 1 + Math.floor(next() * 40) }, pick).join(next() < 0.5 ? "" : " "));
      const limit = 1 + Math.floor(next() * (bytes.length + 5));
      const parts: Uint8Array[] = [];
      const segmenter = new SpillSegmenter(limit, secrets, (part) => parts.push(part.slice()));
      for (let offset = 0; offset < bytes.length;) {
        const size = 1 + Math.floor(next() * 30);
        segmenter.push(bytes.subarray(offset, offset + size));
        offset += size;
      }
      segmenter.end();
      const file = new TextDecoder().decode(Buffer.concat(parts));
      const kept = new TextDecoder().decode(bytes.subarray(0, segmenter.keptBytes));
      const leaks = secrets.some((secret) =>
        Array.from({ length: secret.length - 7 }, (_, at) => secret.slice(at, at + 8)).some((piece) => file.includes(piece)),
      );
      if (file !== redactSecrets(kept, { knownSecrets: secrets }) || leaks || segmenter.keptBytes > limit) failures.push(seed);
    }
    expect(failures).toEqual([]);
  });
});
