// The spill file's segmenter, attacked where it must cut without a safe place: a long run with no
// whitespace. Each part is redacted on its own, so a cut inside a known secret would write its two
// pieces unmasked, one after the other: the whole secret, in the file.
import { describe, expect, it } from "vitest";
import { SpillSegmenter } from "../src/execute/spill-segmenter.js";

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
