// Run ids and tokens: random hex from /dev/urandom where node:fs is at hand, else from Web Crypto.
import { afterEach, describe, expect, it, vi } from "vitest";
import { newRunId, newRunToken } from "../src/ids.js";

afterEach(() => vi.restoreAllMocks());

/** Has `process.getBuiltinModule("node:fs")` give `fs` for the duration of `body`. */
function withBuiltinFs<T>(fs: unknown, body: () => T): T {
  const descriptor = Object.getOwnPropertyDescriptor(process, "getBuiltinModule")!;
  const original = descriptor.value as (this: NodeJS.Process, id: string) => unknown;
  const standIn = (id: string): unknown => (id === "node:fs" ? fs : original.call(process, id));
  Object.defineProperty(process, "getBuiltinModule", { value: standIn, configurable: true, writable: true });
  try {
    return body();
  } finally {
    Object.defineProperty(process, "getBuiltinModule", descriptor);
  }
}

describe("run ids and tokens", () => {
  it("are lowercase hex of 64 and 256 bits, and never repeat", () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => newRunToken()));
    expect(tokens.size).toBe(2000);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(newRunId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it("come from /dev/urandom when node:fs is at hand, without Web Crypto", () => {
    const webCrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    expect(newRunToken()).toMatch(/^[0-9a-f]{64}$/);
    expect(webCrypto).not.toHaveBeenCalled();
  });

  it.each([
    [
      "the device cannot be opened",
      {
        openSync: () => {
          throw Object.assign(new Error("EMFILE"), { code: "EMFILE" });
        },
        readSync: () => 0,
        closeSync: () => {},
      },
    ],
    ["the device gives nothing", { openSync: () => 7, readSync: () => 0, closeSync: () => {} }],
    [
      "a read fails part-way",
      {
        openSync: () => 7,
        readSync: (_fd: number, buffer: Uint8Array) => {
          if (buffer[0] === 1) throw new Error("EIO");
          buffer.fill(1, 0, 4);
          return 4;
        },
        closeSync: () => {
          throw new Error("EBADF");
        },
      },
    ],
  ])("fall back to Web Crypto when %s", (_case, fs) => {
    const webCrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    const token = withBuiltinFs(fs, () => newRunToken());
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(token).not.toMatch(/^(01)+$/);
    expect(webCrypto).toHaveBeenCalledTimes(1);
  });

  it("fall back to Web Crypto where the runtime has no built-in modules to offer", () => {
    const webCrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    expect(withBuiltinFs(undefined, () => newRunToken())).toMatch(/^[0-9a-f]{64}$/);
    expect(webCrypto).toHaveBeenCalledTimes(1);
  });
});
