// A local process's stdout and stderr are byte streams read into one reused buffer (see
// pipe-byte-stream.ts). Whatever reader takes them, it gets exactly the script's bytes, in order,
// and chunks it was given stay intact after later reads.
import { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createCapture, drainStream, LENT_CHUNKS, type LentChunkStream } from "@codecall/core/plugin-kit";
import { createEnvironment } from "../src/index.js";
import { toWebReadable } from "../src/node-streams.js";

/** `count` bytes of a pattern whose period (251) never lines up with a read's size. */
function pattern(count: number, from = 0): Uint8Array {
  return Uint8Array.from({ length: count }, (_, index) => (from + index) % 251);
}

/** A shell command that prints {@link pattern}`(count)` to stdout, then `done` to stderr. */
function printPattern(count: number): string {
  return `python3 -c "import sys; sys.stdout.buffer.write(bytes(i % 251 for i in range(${count}))); sys.stdout.flush(); print('done', file=sys.stderr)"`;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return all;
}

async function readDefault(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

async function readByob(stream: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const reader = stream.getReader({ mode: "byob" });
  const chunks: Uint8Array[] = [];
  let buffer = new Uint8Array(size);
  for (;;) {
    const { done, value } = await reader.read(buffer);
    if (done) break;
    chunks.push(value.slice());
    buffer = new Uint8Array(value.buffer);
  }
  return concat(chunks);
}

/** Far more than a pipe holds, and no multiple of a read's size. */
const SIZE = 1024 * 1024 + 7;

/** Index of the first byte where `actual` and `expected` differ (or the shorter one ends), -1 if equal (faster than a deep equal). */
function firstDifference(actual: Uint8Array, expected: Uint8Array): number {
  const length = Math.min(actual.length, expected.length);
  for (let index = 0; index < length; index += 1) if (actual[index] !== expected[index]) return index;
  return actual.length === expected.length ? -1 : length;
}

describe("local process output streams", () => {
  it("give a BYOB reader every byte in order, in its own buffer", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(SIZE));
    expect(firstDifference(await readByob(process.stdout, 65_536), pattern(SIZE))).toBe(-1);
    expect(await process.wait()).toEqual({ exitCode: 0 });
  });

  it("keep what does not fit a small BYOB buffer for the next read", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(200_000));
    expect(firstDifference(await readByob(process.stdout, 1000), pattern(200_000))).toBe(-1);
  });

  it("give a default reader chunks of its own, untouched by later reads", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(SIZE));
    const chunks = await readDefault(process.stdout);
    expect(chunks.length).toBeGreaterThan(1);
    // Every chunk still holds its own part of the stream after all later reads.
    let offset = 0;
    for (const chunk of chunks) {
      expect(firstDifference(chunk, pattern(chunk.length, offset))).toBe(-1);
      offset += chunk.length;
    }
    expect(offset).toBe(SIZE);
  });

  it("leave output in the pipe while no one reads, and lose none of it", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(SIZE));
    const reader = process.stdout.getReader();
    const first = await reader.read();
    // The script cannot finish (and say so on stderr) while its output is not read: a pipe holds
    // far less than SIZE. (A broken back-pressure could only make this pass wrongly, never fail.)
    const stderr = process.stderr.getReader();
    const said = stderr.read();
    expect(await Promise.race([said, delay(300).then(() => "still writing")])).toBe("still writing");
    const chunks = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(firstDifference(concat(chunks), pattern(SIZE))).toBe(-1);
    // "done" and its newline may come as two writes (an unbuffered stderr), so as two reads.
    const told = [(await said).value!];
    for (let next = await stderr.read(); !next.done; next = await stderr.read()) told.push(next.value);
    expect(new TextDecoder().decode(concat(told))).toBe("done\n");
    expect(await process.wait()).toEqual({ exitCode: 0 });
  });

  it("keep the bytes a process left when it exited before they were read, then end", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(10_000));
    expect(await process.wait()).toEqual({ exitCode: 0 });
    expect(firstDifference(await readByob(process.stdout, 4096), pattern(10_000))).toBe(-1);
    expect(new TextDecoder().decode(concat(await readDefault(process.stderr)))).toBe("done\n");
  });

  it("close the pipe when cancelled, so a writer that never stops ends", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn("yes");
    const reader = process.stdout.getReader({ mode: "byob" });
    expect((await reader.read(new Uint8Array(100))).value!.length).toBeGreaterThan(0);
    await reader.cancel();
    // `yes` fails on its next write (EPIPE, or SIGPIPE).
    expect((await process.wait()).exitCode).not.toBe(0);
  });

  it("lend core's reader every byte in order, each chunk a view of one reused buffer", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(SIZE));
    const stdout = process.stdout as LentChunkStream;
    const { read } = stdout[LENT_CHUNKS]();
    const chunks: Uint8Array[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for (let chunk = await read(); chunk !== undefined; chunk = await read()) {
      buffers.add(chunk.buffer);
      chunks.push(chunk.slice());
    }
    expect(firstDifference(concat(chunks), pattern(SIZE))).toBe(-1);
    expect(chunks.length).toBeGreaterThan(1);
    // No buffer (nor array buffer object) per read: the pipe's own read buffer, lent.
    expect(buffers.size).toBe(1);
    expect(await read()).toBeUndefined();
    await expect(process.wait()).resolves.toEqual({ exitCode: 0 });
  });

  it("are drained by core through the lent chunks, with no allocation per read", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn(printPattern(SIZE));
    const capture = createCapture();
    const buffers = new Set<ArrayBufferLike>();
    await drainStream(process.stdout, capture, (chunk) => buffers.add(chunk.buffer));
    expect(capture.finish().totalBytes).toBe(SIZE);
    // A BYOB read transfers its buffer into a new ArrayBuffer object every time.
    expect(buffers.size).toBe(1);
  });

  it("end a pending lent read when the drain is stopped, and refuse a second one at once", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn("sleep 30");
    const { read } = (process.stdout as LentChunkStream)[LENT_CHUNKS]();
    const pending = read();
    await expect(read()).rejects.toThrow(/already pending/);
    const stop = new AbortController();
    const drained = drainStream(process.stderr, createCapture(), undefined, stop.signal);
    stop.abort();
    // Stopped while its read waited for a silent pipe: the drain ends, it does not wait for the process.
    await drained;
    await process.stdout.cancel();
    expect(await pending).toBeUndefined();
    await process.kill();
  });

  it("fall back to Readable.toWeb for a stream that is no pipe", async () => {
    const stream = toWebReadable(Readable.from([Buffer.from("one "), Buffer.from("two")]));
    expect(() => stream.getReader({ mode: "byob" })).toThrow(TypeError);
    expect(new TextDecoder().decode(concat(await readDefault(stream)))).toBe("one two");
  });
});
