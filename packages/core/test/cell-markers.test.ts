// Splitting a kernel's output at its end markers, whatever the chunks the stream arrives in.
import { describe, expect, it } from "vitest";
import { CellMarkerSplitter, MAX_MARKER_PAYLOAD_BYTES } from "../src/session/cell-markers.js";

const NONCE = "n0nce";
const encoder = new TextEncoder();

/** Feeds `text` in chunks of `size` bytes; returns the data and markers in order. */
function split(text: string, size: number): unknown[] {
  const seen: unknown[] = [];
  let data = "";
  const decoder = new TextDecoder();
  const splitter = new CellMarkerSplitter(NONCE, {
    onData: (chunk) => (data += decoder.decode(chunk, { stream: true })),
    onMarker: (payload) => {
      if (data !== "") seen.push(data);
      data = "";
      seen.push({ marker: payload });
    },
  });
  const bytes = encoder.encode(text);
  for (let offset = 0; offset < bytes.length; offset += size) splitter.push(bytes.subarray(offset, offset + size));
  splitter.end();
  if (data !== "") seen.push(data);
  return seen;
}

describe("CellMarkerSplitter", () => {
  it("passes output on and takes out each marker, in any chunking", () => {
    const stream = `héllo${NONCE}{"cell":1}\nnext ${NONCE}{"cell":2,"status":"ok"}\ntail n0n`;
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(split(stream, size)).toEqual(["héllo", { marker: { cell: 1 } }, "next ", { marker: { cell: 2, status: "ok" } }, "tail n0n"]);
    }
  });

  it("holds back only what could begin the nonce, and releases it when it does not", () => {
    const held: string[] = [];
    const splitter = new CellMarkerSplitter(NONCE, { onData: (chunk) => held.push(new TextDecoder().decode(chunk)), onMarker: () => {} });
    splitter.push(encoder.encode("abc n0n"));
    expect(held).toEqual(["abc "]);
    splitter.push(encoder.encode("sense"));
    expect(held).toEqual(["abc ", "n0nsense"]);
  });

  it("treats a line with the nonce but no JSON after it as output", () => {
    expect(split(`a${NONCE}not json\nb`, 4)).toEqual([`a${NONCE}not json\nb`]);
  });

  it("waits for the end of a marker's line; one cut off by the stream's end is output", () => {
    const seen: string[] = [];
    const splitter = new CellMarkerSplitter(NONCE, { onData: (chunk) => seen.push(new TextDecoder().decode(chunk)), onMarker: () => {} });
    splitter.push(encoder.encode(`x${NONCE}{"cell":`));
    expect(seen).toEqual(["x"]);
    splitter.end();
    expect(seen).toEqual(["x", `${NONCE}{"cell":`]);
  });

  it("passes on the nonce and what follows as output when no marker's newline comes in time (a cell that read the nonce)", () => {
    let received = 0;
    const markers: unknown[] = [];
    const splitter = new CellMarkerSplitter(NONCE, { onData: (chunk) => (received += chunk.length), onMarker: (payload) => markers.push(payload) });
    const flood = new Uint8Array(64 * 1024).fill(0x79);
    splitter.push(encoder.encode(`x${NONCE}`));
    for (let index = 0; index < 16; index += 1) splitter.push(flood);
    // Everything but the bytes that may still be a marker was passed on: nothing waits for a newline.
    expect(received).toBe(1 + NONCE.length + 16 * flood.length);
    // The search goes on after it: a real marker is still found.
    splitter.push(encoder.encode(`\n${NONCE}{"cell":1}\n`));
    expect(markers).toEqual([{ cell: 1 }]);
    // A line exactly at the limit is still a marker's; one byte longer is output.
    const atLimit = `{"pad":"${"p".repeat(MAX_MARKER_PAYLOAD_BYTES - 10)}"}`;
    expect(split(`${NONCE}${atLimit}\nz`, 100)).toEqual([{ marker: { pad: "p".repeat(MAX_MARKER_PAYLOAD_BYTES - 10) } }, "z"]);
    const overLimit = `{"pad":"${"p".repeat(MAX_MARKER_PAYLOAD_BYTES - 9)}"}`;
    expect(split(`${NONCE}${overLimit}\nz`, 100)).toEqual([`${NONCE}${overLimit}\nz`]);
  });
});
