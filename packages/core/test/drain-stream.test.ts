// drainStream reads a byte stream (the local backend's pipes) with a BYOB reader into one reused
// buffer, and any other stream with a default reader. Either way the capture keeps the same text,
// notice and tail, and the embedder's live output (through its redacting sink) gets chunks it may keep.
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/execute/output-capture.js";
import { redactingSink } from "../src/execute/redacting-sink.js";
import { drainStream } from "../src/process/collect.js";
import { LENT_CHUNKS, type LentChunkStream } from "../src/process/chunk-reader.js";
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

/**
 * `bytes` as a stream that lends its chunks (as the local backend's pipes do): every chunk is a
 * view of one reused buffer, overwritten by the next read. Its own reads are never used.
 */
function lentSource(bytes: Uint8Array): { stream: LentChunkStream; cancelled: () => boolean } {
  const buffer = new Uint8Array(65_536);
  let offset = 0;
  let piece = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull: () => {
      throw new Error("a lent stream's own reads are not for core");
    },
    cancel: () => {
      cancelled = true;
    },
  });
  const read = async (): Promise<Uint8Array | undefined> => {
    // A stop may come while a read waits: one tick per read lets it in.
    await new Promise((resolve) => setImmediate(resolve));
    if (cancelled || offset >= bytes.length) return undefined;
    const size = Math.min(PIECES[piece++ % PIECES.length]!, bytes.length - offset, buffer.length);
    buffer.fill(0);
    buffer.set(bytes.subarray(offset, offset + size));
    offset += size;
    return buffer.subarray(0, size);
  };
  return { stream: Object.assign(stream, { [LENT_CHUNKS]: () => ({ read }) }), cancelled: () => cancelled };
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

  it("reads a stream that lends its chunks through them: the same capture, and a stop cancels it", async () => {
    const fromLent = capture();
    const source = lentSource(BIG);
    const drained = drainStream(source.stream, fromLent);
    expect(source.stream.locked).toBe(true);
    await drained;
    const fromPlain = capture();
    await drainStream(plainSource(BIG), fromPlain);
    expect(Buffer.compare(await fromLent.spillFile(), await fromPlain.spillFile())).toBe(0);
    expect(fromLent.finish()).toEqual(fromPlain.finish());

    const stopped = lentSource(BIG);
    const stop = new AbortController();
    const partial = capture();
    const draining = drainStream(stopped.stream, partial, undefined, stop.signal);
    stop.abort();
    await draining;
    expect(stopped.cancelled()).toBe(true);
    expect(partial.totalBytes).toBeLessThan(BIG.length);
  });

  it("cancels the stream, and ends, when its capture fails part-way (its writer is not left blocked)", async () => {
    // A writer that never stops (a script still printing): only a cancel ends its stream.
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(1024)),
      cancel: () => {
        cancelled = true;
      },
    });
    let pushes = 0;
    const failing = {
      push: () => {
        pushes += 1;
        if (pushes === 3) throw new Error("the disk is full");
      },
      totalBytes: 0,
      finish: () => undefined as never,
    };
    await drainStream(endless, failing);
    expect(pushes).toBe(3);
    expect(cancelled).toBe(true);
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

  it("reads nothing more while live output holds a chunk, then reads on to the end", async () => {
    const source = byteSource(BIG);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: Uint8Array[] = [];
    const drained = drainStream(source.stream, capture(), (chunk) => {
      seen.push(chunk.slice());
      return seen.length === 1 ? held : undefined;
    });
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(seen.length).toBe(1);
    release();
    await drained;
    expect(Buffer.compare(concatBytes(seen), BIG)).toBe(0);
  });

  it("lets a hold that never settles go when stopped, and a rejected hold counts as taken", async () => {
    const stop = new AbortController();
    let chunks = 0;
    const draining = drainStream(
      byteSource(BIG).stream,
      capture(),
      () => {
        chunks += 1;
        return new Promise(() => {});
      },
      stop.signal,
    );
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    await draining;
    expect(chunks).toBe(1);

    const seen: Uint8Array[] = [];
    await drainStream(byteSource(BIG).stream, capture(), (chunk) => {
      seen.push(chunk.slice());
      return Promise.reject(new Error("the consumer failed"));
    });
    expect(Buffer.compare(concatBytes(seen), BIG)).toBe(0);
  });

  it("reads the rest at once, losing nothing, when let go while a consumer holds a chunk", async () => {
    const letGo = new AbortController();
    const seen: Uint8Array[] = [];
    const whole = capture();
    const drained = drainStream(
      byteSource(BIG).stream,
      whole,
      (chunk) => {
        seen.push(chunk.slice());
        return new Promise<void>(() => {});
      },
      undefined,
      letGo.signal,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.length).toBe(1);
    letGo.abort();
    await drained;
    expect(Buffer.compare(concatBytes(seen), BIG)).toBe(0);
    expect(whole.totalBytes).toBe(BIG.length);
  });
});
