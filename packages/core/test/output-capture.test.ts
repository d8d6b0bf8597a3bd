import { describe, expect, it } from "vitest";
import { createCapture, OutputCapture } from "../src/execute/output-capture.js";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

function capture(limit: number, ...chunks: string[]) {
  const target = new OutputCapture(limit);
  for (const chunk of chunks) target.push(bytes(chunk));
  return target.finish();
}

/** The kept head and tail of a truncated text, split at the notice. */
function parts(text: string): { head: string; notice: string; tail: string } {
  const match = /^([\s\S]*?)(\n\n\.\.\. \[OUTPUT TRUNCATED - [\d,]+ bytes omitted out of [\d,]+ total\] \.\.\.\n\n)([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`no truncation notice in ${JSON.stringify(text.slice(0, 200))}`);
  return { head: match[1]!, notice: match[2]!, tail: match[3]! };
}

describe("OutputCapture", () => {
  it("keeps output under the limit exactly", () => {
    const result = capture(100, "hello ", "wörld\n", "");
    expect(result).toEqual({ text: "hello wörld\n", truncated: false, totalBytes: 13, capturedBytes: 13, omittedBytes: 0 });
  });

  it("keeps output of exactly the limit exactly", () => {
    const text = "0123456789".repeat(10);
    expect(capture(100, text.slice(0, 30), text.slice(30))).toMatchObject({ text, truncated: false, totalBytes: 100 });
  });

  it("keeps the head 40 % and tail 60 % of the budget, with a notice between", () => {
    const text = Array.from({ length: 300 }, (_, index) => String.fromCharCode(97 + (index % 26))).join("");
    const result = capture(100, text.slice(0, 7), text.slice(7, 150), text.slice(150));
    expect(result.truncated).toBe(true);
    expect(result.totalBytes).toBe(300);
    expect(result.capturedBytes).toBe(100);
    expect(result.omittedBytes).toBe(200);
    const { head, notice, tail } = parts(result.text);
    expect(head).toBe(text.slice(0, 40));
    expect(tail).toBe(text.slice(-60));
    expect(notice).toBe("\n\n... [OUTPUT TRUNCATED - 200 bytes omitted out of 300 total] ...\n\n");
  });

  it("formats large counts with thousands separators", () => {
    const target = new OutputCapture(10);
    target.push(new Uint8Array(1_234_567).fill(0x78));
    const result = target.finish();
    expect(parts(result.text).notice).toBe("\n\n... [OUTPUT TRUNCATED - 1,234,557 bytes omitted out of 1,234,567 total] ...\n\n");
    expect(result.capturedBytes + result.omittedBytes).toBe(result.totalBytes);
  });

  it("moves cut points to UTF-8 character boundaries, counting bytes", () => {
    // "é" is 2 bytes, "€" 3, "😀" 4: a 10-byte budget (head 4, tail 6) cuts inside characters.
    for (const char of ["é", "€", "😀"]) {
      for (let pad = 0; pad < 4; pad += 1) {
        const text = "x".repeat(pad) + char.repeat(20) + "y".repeat(pad);
        const result = capture(10, text);
        const { head, tail } = parts(result.text);
        expect(result.text).not.toContain("\uFFFD");
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        const kept = bytes(head).length + bytes(tail).length;
        expect(result.capturedBytes).toBe(kept);
        expect(bytes(head).length).toBeLessThanOrEqual(4);
        expect(bytes(head).length).toBeGreaterThan(4 - bytes(char).length);
        expect(bytes(tail).length).toBeLessThanOrEqual(6);
        expect(bytes(tail).length).toBeGreaterThan(6 - bytes(char).length);
        expect(result.omittedBytes).toBe(bytes(text).length - kept);
      }
    }
  });

  it("handles multi-byte characters split across pushes", () => {
    const encoded = bytes("😀".repeat(100));
    const target = new OutputCapture(50);
    for (let index = 0; index < encoded.length; index += 3) target.push(encoded.subarray(index, index + 3));
    const result = target.finish();
    const { head, tail } = parts(result.text);
    expect(head).toBe("😀".repeat(5)); // 20 bytes of head budget
    expect(tail).toBe("😀".repeat(7)); // 30 bytes of tail budget: 7 whole characters
    expect(result.capturedBytes).toBe(48);
    expect(result.omittedBytes).toBe(400 - 48);
  });

  it("keeps the last bytes when one chunk is larger than the whole tail", () => {
    const target = new OutputCapture(10);
    target.push(bytes("ab"));
    target.push(bytes("0123456789ABCDEFGHIJ"));
    target.push(bytes("klm"));
    target.push(bytes("NOPQRSTUVWXYZ"));
    const result = target.finish();
    const { head, tail } = parts(result.text);
    expect(head).toBe("ab01");
    expect(tail).toBe("UVWXYZ");
    expect(result).toMatchObject({ totalBytes: 38, capturedBytes: 10, omittedBytes: 28 });
  });

  it("keeps the tail in stream order after the ring wraps many times", () => {
    const target = new OutputCapture(10);
    const all: string[] = [];
    for (let index = 0; index < 1000; index += 1) {
      const chunk = String(index % 10).repeat((index % 4) + 1);
      all.push(chunk);
      target.push(bytes(chunk));
    }
    const joined = all.join("");
    const { head, tail } = parts(target.finish().text);
    expect(head).toBe(joined.slice(0, 4));
    expect(tail).toBe(joined.slice(-6));
  });

  it("stays bounded for 100 MB of output", () => {
    const limit = 50_000;
    const target = new OutputCapture(limit);
    const chunk = new Uint8Array(64 * 1024).fill(0x2e); // "."
    const total = 100 * 1024 * 1024;
    for (let fed = 0; fed < total; fed += chunk.length) target.push(chunk);
    target.push(bytes("THE END"));
    expect(target.totalBytes).toBe(total + 7);
    const result = target.finish();
    expect(result.totalBytes).toBe(total + 7);
    expect(result.capturedBytes).toBe(limit);
    expect(result.omittedBytes).toBe(total + 7 - limit);
    const { head, tail } = parts(result.text);
    expect(head.length).toBe(20_000);
    expect(tail.length).toBe(30_000);
    expect(tail.endsWith(".THE END")).toBe(true);
    expect(result.text.length).toBeLessThan(limit + 100);
  });

  it("works with a zero limit", () => {
    const result = capture(0, "abc");
    expect(result).toMatchObject({ truncated: true, totalBytes: 3, capturedBytes: 0, omittedBytes: 3 });
    expect(result.text).toBe("\n\n... [OUTPUT TRUNCATED - 3 bytes omitted out of 3 total] ...\n\n");
    expect(capture(0)).toEqual({ text: "", truncated: false, totalBytes: 0, capturedBytes: 0, omittedBytes: 0 });
  });

  it("rejects invalid limits", () => {
    expect(() => new OutputCapture(-1)).toThrow(RangeError);
    expect(() => new OutputCapture(1.5)).toThrow(RangeError);
    expect(() => new OutputCapture(Number.NaN)).toThrow(RangeError);
  });
});

describe("createCapture", () => {
  it("keeps everything without a limit, and copies the pushed chunks", () => {
    const target = createCapture();
    const chunk = bytes("abc");
    target.push(chunk);
    chunk.set(bytes("XYZ"));
    target.push(bytes("é"));
    expect(target.totalBytes).toBe(5);
    expect(target.finish()).toEqual({ text: "abcé", truncated: false, totalBytes: 5, capturedBytes: 5, omittedBytes: 0 });
  });

  it("bounds the capture when a limit is given", () => {
    const target = createCapture(10);
    expect(target).toBeInstanceOf(OutputCapture);
    target.push(new Uint8Array(100).fill(0x61));
    expect(target.finish()).toMatchObject({ truncated: true, capturedBytes: 10, omittedBytes: 90 });
  });
});

describe("OutputCapture memory", () => {
  it("holds memory in proportion to what was pushed, not to its limit", () => {
    // A poll's capture has a limit of tens of MiB and usually sees a few hundred bytes.
    const before = process.memoryUsage().arrayBuffers;
    const captures = Array.from({ length: 8 }, () => new OutputCapture(64 * 1024 * 1024));
    for (const capture of captures) capture.push(bytes("a small poll answer\n"));
    const grownBy = process.memoryUsage().arrayBuffers - before;
    expect(grownBy).toBeLessThan(16 * 1024 * 1024);
    for (const capture of captures) expect(capture.finish().text).toBe("a small poll answer\n");
  });
});
