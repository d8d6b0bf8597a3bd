import { describe, expect, it } from "vitest";
import { encodeRelayFrame, MAX_RELAY_FRAME_BYTES, RELAY_GREETING, RelayFrameDecoder, RelayProtocolError, type RelayEvent } from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};
/** Events with payloads as text, for readable assertions. */
const readable = (events: RelayEvent[]) => events.map((event) => (event.kind === "data" ? { ...event, data: text(event.data) } : event));

const stream = concat(
  bytes(`${RELAY_GREETING}\n`),
  encodeRelayFrame(1, '{"id":0}\n'),
  encodeRelayFrame(2, "é".repeat(300)),
  encodeRelayFrame(1, ""),
  encodeRelayFrame(4294967295, "x"),
);
const expected = [
  { kind: "greeting" },
  { kind: "data", connection: 1, data: '{"id":0}\n' },
  { kind: "data", connection: 2, data: "é".repeat(300) },
  { kind: "closed", connection: 1 },
  { kind: "data", connection: 4294967295, data: "x" },
];

describe("relay framing", () => {
  it("decodes the greeting, data and closes from one chunk", () => {
    expect(readable(new RelayFrameDecoder().push(stream))).toEqual(expected);
  });

  it("decodes the same whatever the chunks, split at every byte", () => {
    for (let split = 1; split < stream.length; split++) {
      const decoder = new RelayFrameDecoder();
      const events = [...decoder.push(stream.subarray(0, split)), ...decoder.push(stream.subarray(split))];
      expect(readable(events), `split at ${split}`).toEqual(expected);
    }
    const decoder = new RelayFrameDecoder();
    const events = [...stream].flatMap((byte) => decoder.push(Uint8Array.of(byte)));
    expect(readable(events)).toEqual(expected);
  });

  it("copies payloads, so a reused chunk cannot change them", () => {
    const chunk = concat(bytes(`${RELAY_GREETING}\n`), encodeRelayFrame(1, "abc"));
    const [, data] = new RelayFrameDecoder().push(chunk);
    chunk.fill(0);
    expect(text((data as { data: Uint8Array }).data)).toBe("abc");
  });

  it("skips a login shell's chatter before the greeting, within a bound", () => {
    const decoder = new RelayFrameDecoder();
    expect(decoder.push(bytes("Welcome!\nlast login: never\n"))).toEqual([]);
    expect(readable(decoder.push(concat(bytes(`${RELAY_GREETING}\n`), encodeRelayFrame(3, "ok"))))).toEqual([
      { kind: "greeting" },
      { kind: "data", connection: 3, data: "ok" },
    ]);
    expect(() => new RelayFrameDecoder().push(bytes("noise\n".repeat(1000)))).toThrow(RelayProtocolError);
    expect(() => new RelayFrameDecoder().push(new Uint8Array(5000).fill(0x41))).toThrow(/without a newline before its greeting/);
  });

  it("refuses bad headers", () => {
    const greeted = () => {
      const decoder = new RelayFrameDecoder();
      decoder.push(bytes(`${RELAY_GREETING}\n`));
      return decoder;
    };
    for (const header of ["1\n", "a 1\n", "1 -1\n", "1 1 1\n", " 1 1\n", "1  1\n", "\n", "12345678901 1\n"]) {
      expect(() => greeted().push(bytes(header)), JSON.stringify(header)).toThrow(/bad frame header/);
    }
    expect(() => greeted().push(bytes("1".repeat(100)))).toThrow(/without a newline in a frame header/);
  });

  it("refuses a frame larger than the relay ever sends, before buffering it", () => {
    const decoder = new RelayFrameDecoder();
    decoder.push(bytes(`${RELAY_GREETING}\n`));
    expect(() => decoder.push(bytes(`1 ${MAX_RELAY_FRAME_BYTES + 1}\n`))).toThrow(/1048577-byte frame/);
  });

  it("encodes a header with the payload's byte length", () => {
    expect(text(encodeRelayFrame(7, "é\n"))).toBe("7 3\né\n");
    expect(text(encodeRelayFrame(7, new Uint8Array(0)))).toBe("7 0\n");
  });
});
