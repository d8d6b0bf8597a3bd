import { describe, expect, it } from "vitest";
import { FrameDecoder, type DecodedFrame } from "../src/protocol/frame-decoder.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const lines = (frames: DecodedFrame[]) => frames.map((frame) => (frame.kind === "frame" ? frame.line : `<oversized ${frame.bytes}>`));

describe("FrameDecoder", () => {
  it("joins a frame split across chunks", () => {
    const decoder = new FrameDecoder(1024);
    expect(decoder.push(bytes('{"jsonrpc":"2.0",'))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(17);
    expect(decoder.push(bytes('"id":1'))).toEqual([]);
    expect(decoder.push(bytes("}\n"))).toEqual([{ kind: "frame", line: '{"jsonrpc":"2.0","id":1}' }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it("returns several frames from one chunk, in order, keeping the unfinished rest", () => {
    const decoder = new FrameDecoder(1024);
    expect(lines(decoder.push(bytes("one\ntwo\nthree\nfour")))).toEqual(["one", "two", "three"]);
    expect(decoder.bufferedBytes).toBe(4);
    expect(lines(decoder.push(bytes("\n")))).toEqual(["four"]);
  });

  it("decodes multi-byte UTF-8 split across chunks", () => {
    const text = "héllo → 𝄞 世界";
    const encoded = bytes(`${text}\n`);
    // Split inside every multi-byte character: one byte per chunk.
    const decoder = new FrameDecoder(1024);
    const out: DecodedFrame[] = [];
    for (let index = 0; index < encoded.length; index += 1) out.push(...decoder.push(encoded.subarray(index, index + 1)));
    expect(out).toEqual([{ kind: "frame", line: text }]);
    expect(lines(out)[0]).not.toContain("\uFFFD");
  });

  it("strips the carriage return of CRLF line endings", () => {
    const decoder = new FrameDecoder(1024);
    expect(lines(decoder.push(bytes("a\r\nb\r")))).toEqual(["a"]);
    expect(lines(decoder.push(bytes("\n")))).toEqual(["b"]);
  });

  it("skips blank and whitespace-only lines", () => {
    const decoder = new FrameDecoder(1024);
    expect(lines(decoder.push(bytes("\n\n  \n\r\nx\n\t\n")))).toEqual(["x"]);
  });

  it("does not keep a reference to the caller's buffer", () => {
    const decoder = new FrameDecoder(1024);
    const buffer = bytes("abc");
    decoder.push(buffer);
    buffer.set(bytes("XYZ"));
    expect(lines(decoder.push(bytes("\n")))).toEqual(["abc"]);
  });

  it("accepts a frame of exactly the limit", () => {
    const decoder = new FrameDecoder(10);
    expect(decoder.push(bytes(`${"a".repeat(10)}\n`))).toEqual([{ kind: "frame", line: "a".repeat(10) }]);
  });

  it("reports an oversized frame with its prefix and byte count, then goes on decoding", () => {
    const decoder = new FrameDecoder(64);
    const head = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"data":"';
    const big = `${head}${"z".repeat(1000)}"}}`;
    const out = [
      ...decoder.push(bytes(big.slice(0, 40))),
      ...decoder.push(bytes(big.slice(40, 500))),
      ...decoder.push(bytes(`${big.slice(500)}\n{"next":1}\n`)),
    ];
    expect(out).toHaveLength(2);
    const [oversized, next] = out;
    expect(oversized).toEqual({ kind: "oversized", prefix: big.slice(0, 256), bytes: big.length, over: "frame" });
    expect(next).toEqual({ kind: "frame", line: '{"next":1}' });
    expect(decoder.bufferedBytes).toBe(0);
  });

  it("reports an oversized frame that arrives in one chunk", () => {
    const decoder = new FrameDecoder(8);
    const out = decoder.push(bytes(`short\n${"x".repeat(20)}\nafter\n`));
    expect(out).toEqual([
      { kind: "frame", line: "short" },
      { kind: "oversized", prefix: "x".repeat(20), bytes: 20, over: "frame" },
      { kind: "frame", line: "after" },
    ]);
  });

  it("keeps bufferedBytes within the limit for a never-ending 100 MB line", () => {
    const limit = 1024 * 1024;
    const decoder = new FrameDecoder(limit);
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    chunk.set(bytes('{"jsonrpc":"2.0","id":"big","method":"x"'), 0);
    const total = 100 * 1024 * 1024;
    let maxBuffered = 0;
    let frames = 0;
    for (let fed = 0; fed < total; fed += chunk.length) {
      frames += decoder.push(fed === 0 ? chunk : chunk.fill(0x61, 0, 64)).length;
      maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(limit);
    }
    expect(frames).toBe(0);
    expect(maxBuffered).toBeLessThanOrEqual(limit);
    expect(maxBuffered).toBeGreaterThan(limit - chunk.length); // it did buffer up to the limit first
    const [end] = decoder.push(bytes("\n"));
    expect(end).toMatchObject({ kind: "oversized", bytes: total });
    expect(end?.kind === "oversized" && end.prefix.startsWith('{"jsonrpc":"2.0","id":"big"')).toBe(true);
    expect(decoder.push(bytes("ok\n"))).toEqual([{ kind: "frame", line: "ok" }]);
  });

  it("holds a frame sent a byte at a time in memory of about its size, not an object per byte", () => {
    const decoder = new FrameDecoder(16 * 1024 * 1024);
    const prefix = bytes('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"');
    const byte = new Uint8Array(1);
    const count = 1_000_000;
    const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = used();
    for (const value of prefix) decoder.push(byte.fill(value));
    for (let index = 0; index < count; index += 1) decoder.push(byte.fill(0x78));
    // Held while measured: a copy per read held about 100 bytes for each (100 MB here).
    const growth = used() - before;
    expect(decoder.bufferedBytes).toBe(prefix.length + count);
    expect(growth).toBeLessThan(24 * 1024 * 1024);
    const [frame] = decoder.push(bytes('"}}}\n'));
    expect(frame?.kind === "frame" && frame.line.length).toBe(prefix.length + count + 4);
  });
});
