// drainStream reads a byte stream (the local backend's pipes) with a BYOB reader into one reused
// buffer, and any other stream with a default reader. Either way the capture keeps the same text,
// notice and tail, and the embedder's live output (through its redacting sink) gets chunks it may keep.
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/execute/output-capture.js";
import { redactingSink } from "../src/execute/redacting-sink.js";
import { drainStream } from "../src/process/collect.js";
import { concatBytes } from "../src/files/concat-bytes.js";
import { outputSpill } from "../src/execute/spill-output.js";
import { createMemoryPair } from "./support/memory-pair.js";

/** Numbered lines, some with multi-byte characters, about `bytes` long. */
function output(bytes: number): Uint8Array {
  const lines: string[] = [];
  for (let length = 0, line = 0; length < bytes; line += 1) {
    const text = `line ${line} ${"é".repeat(line % 7)}${"x".repeat(line % 300)}\n`;
    lines.push(text);
    length += text.length;
  }
  return new TextEncoder().encode(lines.join(""));
}

/** Sizes of the pieces a source hands out: uneven, as a pipe's reads are. */
const PIECES = [1, 65_536, 4095, 30_000, 7, 65_536, 12_345];

/** `bytes` as a byte stream, counting the reads it answered straight into a BYOB reader's buffer. */
function byteSource(bytes: Uint8Array): { stream: ReadableStream<Uint8Array>; intoReaderBuffer: () => number } {
  let offset = 0;
  let piece = 0;
  let intoReaderBuffer = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull: (controller) => {
      if (offset >= bytes.length) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const size = Math.min(PIECES[piece++ % PIECES.length]!, bytes.length - offset);
      const request = controller.byobRequest;
      if (request?.view) {
        const view = new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength);
        const taken = Math.min(size, view.length);
        view.set(bytes.subarray(offset, offset + taken));
        request.respond(taken);
        offset += taken;
        intoReaderBuffer += 1;
      } else {
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      }
    },
  });
  return { stream, intoReaderBuffer: () => intoReaderBuffer };
}

/** `bytes` as a plain stream (default reader only), in the same pieces. */
function plainSource(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  let piece = 0;
  return new ReadableStream({
    pull: (controller) => {
      if (offset >= bytes.length) return controller.close();
      const size = PIECES[piece++ % PIECES.length]!;
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

const BIG = output(5 * 1024 * 1024);
const LIMIT = 100_000;

const SECRETS = ["not-in-the-output"];

/** A capture whose stream also spills (streamed) into an environment of its own. */
function capture(): OutputCapture & { spillFile: () => Promise<Uint8Array> } {
  const environment = createMemoryPair(() => 0, { fileWriter: {} }).environment;
  const spill = outputSpill({ environment, spillBytes: 1024 * 1024, capBytes: LIMIT, knownSecrets: SECRETS })!;
  const spillFile = async () => {
    const note = await spill.finish();
    if (note === undefined || !("path" in note)) throw new Error(`no spill file: ${JSON.stringify(note)}`);
    return environment.readFile(note.path);
  };
  return Object.assign(new OutputCapture(LIMIT, { guardSecrets: SECRETS, spill }), { spillFile });
}

describe("drainStream", () => {
  it("keeps the same text, notice and tail from a byte stream as from a plain one", async () => {
    const fromBytes = capture();
    const source = byteSource(BIG);
    await drainStream(source.stream, fromBytes);
    const fromPlain = capture();
    await drainStream(plainSource(BIG), fromPlain);

    // The byte stream was read into the reader's own buffer, not through chunks of its making.
    expect(source.intoReaderBuffer()).toBeGreaterThan(1);
    const [bytesFile, plainFile] = [await fromBytes.spillFile(), await fromPlain.spillFile()];
    expect(bytesFile.length).toBeGreaterThan(1024 * 1024 - 4);
    expect(Buffer.compare(bytesFile, plainFile)).toBe(0);
    const [bytes, plain] = [fromBytes.finish(), fromPlain.finish()];
    expect(bytes).toEqual(plain);
    expect(bytes).toMatchObject({ truncated: true, totalBytes: BIG.length });
    const text = new TextDecoder().decode(BIG);
    const lastLine = text.slice(text.lastIndexOf("line ", text.length - 2));
    expect(bytes.text).toContain(`bytes omitted out of ${BIG.length.toLocaleString("en-US")} total]`);
    expect(bytes.text.endsWith(lastLine)).toBe(true);
    expect(bytes.text.startsWith("line 0 \nline 1 éx\n")).toBe(true);
  });

  it("lends live output each chunk in order, for the call", async () => {
    const seen: Uint8Array[] = [];
    await drainStream(byteSource(BIG).stream, capture(), (chunk) => seen.push(chunk.slice()));
    expect(seen.length).toBeGreaterThan(1);
    expect(Buffer.compare(concatBytes(seen), BIG)).toBe(0);
  });

  for (const knownSecrets of [undefined, ["not-in-the-output"]]) {
    it(`gives an embedder chunks it may keep through a redacting sink (redaction ${knownSecrets ? "on" : "off"})`, async () => {
      const kept: Uint8Array[] = [];
      const sink = redactingSink((chunk) => kept.push(chunk), knownSecrets);
      await drainStream(byteSource(BIG).stream, capture(), sink.write);
      sink.end();
      // Chunks kept as given: were any a view of the reused read buffer, later reads would have overwritten it.
      expect(Buffer.compare(concatBytes(kept), BIG)).toBe(0);
    });
  }
});
