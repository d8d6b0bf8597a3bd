import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readProcFileSync } from "../src/read-proc-file.js";

describe("readProcFileSync", () => {
  it.runIf(process.platform === "linux")("reads a /proc file whole, as Node's readFileSync does", () => {
    expect(readProcFileSync(`/proc/${process.pid}/environ`)).toBe(readFileSync(`/proc/${process.pid}/environ`, "latin1"));
    expect(readProcFileSync(`/proc/${process.pid}/stat`)).toMatch(new RegExp(`^${process.pid} \\(`));
  });

  it("reads a file larger than its buffer, byte for byte as latin1, and a small one after it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-proc-file-"));
    try {
      const large = new Uint8Array(100_000).map((_, index) => (index * 7) % 256);
      await writeFile(path.join(dir, "large"), large);
      await writeFile(path.join(dir, "small"), "pid=1\0");
      expect(readProcFileSync(path.join(dir, "large"))).toBe(Buffer.from(large).toString("latin1"));
      expect(readProcFileSync(path.join(dir, "small"))).toBe("pid=1\0");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("throws for a file that is not there (a process that has ended)", () => {
    expect(() => readProcFileSync("/proc/0/environ")).toThrow(/ENOENT/);
  });
});
