import { describe, expect, it } from "vitest";
import { CodecallError, readBounded, type ReadAt } from "../src/index.js";

/** A source of `total` bytes (endless when undefined) handing out at most `chunk` per read; counts what it gave. */
function source(total: number | undefined, chunk = Number.POSITIVE_INFINITY): { read: ReadAt; given: () => number; calls: () => number } {
  let given = 0;
  let calls = 0;
  return {
    read: async (into, position) => {
      calls += 1;
      const left = total === undefined ? into.length : Math.max(0, total - position);
      const count = Math.min(into.length, left, chunk);
      into.fill(position % 251, 0, count);
      given += count;
      return count;
    },
    given: () => given,
    calls: () => calls,
  };
}

describe("readBounded", () => {
  it("reads to the end in short chunks, with or without a size hint", async () => {
    const small = source(1000, 7);
    expect((await readBounded(small.read, { path: "f", maxBytes: 1000 })).length).toBe(1000);
    const hinted = source(5000, 300);
    expect((await readBounded(hinted.read, { path: "f", sizeHint: 5000 })).length).toBe(5000);
    // A hint that is too big (the file shrank) only sizes the buffer.
    expect((await readBounded(source(10).read, { path: "f", maxBytes: 100, sizeHint: 90 })).length).toBe(10);
  });

  it("stops after maxBytes + 1 bytes of a source that never ends, whatever the hint says", async () => {
    for (const sizeHint of [undefined, 0, 10]) {
      const endless = source(undefined, 4096);
      const error = await readBounded(endless.read, { path: "/dev/zero", maxBytes: 100_000, ...(sizeHint === undefined ? {} : { sizeHint }) }).catch(
        (caught: unknown) => caught,
      );
      expect(CodecallError.isInstance(error, "FILE_TOO_LARGE")).toBe(true);
      expect((error as CodecallError).details).toEqual({ path: "/dev/zero", limit: 100_000 });
      expect(endless.given()).toBe(100_001);
    }
  });

  it("refuses a file whose size is over the cap before reading it", async () => {
    const big = source(10_000_000);
    const error = await readBounded(big.read, { path: "big", maxBytes: 4096, sizeHint: 10_000_000 }).catch((caught: unknown) => caught);
    expect((error as CodecallError).details).toEqual({ path: "big", limit: 4096, size: 10_000_000 });
    expect(big.calls()).toBe(0);
  });

  it("returns a file of exactly maxBytes, and an empty one under maxBytes 0", async () => {
    expect((await readBounded(source(4096, 1000).read, { path: "f", maxBytes: 4096 })).length).toBe(4096);
    expect((await readBounded(source(0).read, { path: "f", maxBytes: 0 })).length).toBe(0);
    await expect(readBounded(source(1).read, { path: "f", maxBytes: 0 })).rejects.toThrow(/File too large: f/);
  });

  it("rejects a maxBytes that is not a non-negative integer", async () => {
    for (const maxBytes of [-1, 1.5, Number.NaN]) await expect(readBounded(source(1).read, { path: "f", maxBytes })).rejects.toThrow(RangeError);
  });
});
