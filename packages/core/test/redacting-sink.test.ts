import { describe, expect, it } from "vitest";
import { redactingSink } from "../src/execute/redacting-sink.js";

const SECRET = "ünïcode-secret-välue-0123";
const encoder = new TextEncoder();

function collect(knownSecrets: readonly string[] | undefined) {
  const chunks: Uint8Array[] = [];
  const sink = redactingSink((chunk) => chunks.push(chunk), knownSecrets);
  // Each chunk the sink emits is whole text (it encodes what the redactor let through).
  const text = () => chunks.map((chunk) => new TextDecoder().decode(chunk)).join("");
  return { sink, chunks, text };
}

describe("redactingSink", () => {
  it("masks a secret split at every byte, multi-byte characters included", () => {
    const bytes = encoder.encode(`printed ${SECRET} twice:${SECRET}\n`);
    for (let at = 0; at <= bytes.length; at += 1) {
      const { sink, chunks, text } = collect([SECRET]);
      sink.write(bytes.subarray(0, at));
      sink.write(bytes.subarray(at));
      sink.end();
      expect(text()).toBe("printed ünïcod...0123 twice:ünïcod...0123\n");
      expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
    }
  });

  it("redacts output that comes after the end at once", () => {
    const { sink, text } = collect([SECRET]);
    sink.end();
    sink.write(encoder.encode(`late ${SECRET}`));
    expect(text()).toBe("late ünïcod...0123");
  });

  it("passes bytes through untouched when redaction is off", () => {
    const { sink, chunks } = collect(undefined);
    const raw = new Uint8Array([0xff, 0x00, 0x41]);
    sink.write(raw);
    sink.end();
    expect(chunks).toEqual([raw]);
  });
});
