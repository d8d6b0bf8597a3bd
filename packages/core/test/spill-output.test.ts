/**
 * Output over the cap saved whole to a file in the environment: what the file holds, what the
 * notice says, the bounds (spillBytes, memory, files kept) and an environment that fails or stops
 * answering at the moment of the write.
 */
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/execute/output-capture.js";
import { finishCapture, MAX_SPILL_FILES } from "../src/execute/spill-output.js";
import { createMemoryPair } from "./support/memory-pair.js";
import type { MemoryEnvironmentOptions } from "./support/memory-environment.js";

const encoder = new TextEncoder();

function memoryEnvironment(options: MemoryEnvironmentOptions = {}) {
  return createMemoryPair(() => 0, options).environment;
}

function captureOf(limit: number, spillBytes: number, chunks: (string | Uint8Array)[], guardSecrets?: string[]) {
  const capture = new OutputCapture(limit, { spillBytes, ...(guardSecrets ? { guardSecrets } : {}) });
  for (const chunk of chunks) capture.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  return capture;
}

describe("OutputCapture spill bytes", () => {
  it("offers nothing to spill when the output fit, or spilling is off", () => {
    expect(captureOf(100, 1000, ["x".repeat(100)]).spilled()).toBeUndefined();
    expect(captureOf(100, 0, ["x".repeat(500)]).spilled()).toBeUndefined();
  });

  it("keeps the first spillBytes of a stream over its cap, and counts the rest", () => {
    const text = Array.from({ length: 5000 }, (_, index) => String.fromCharCode(97 + (index % 26))).join("");
    const spilled = captureOf(100, 3000, [text.slice(0, 7), text.slice(7, 2999), text.slice(2999)]).spilled();
    expect(new TextDecoder().decode(spilled?.bytes)).toBe(text.slice(0, 3000));
    expect(spilled?.totalBytes).toBe(5000);
  });

  it("rejects a spill limit that is not a non-negative integer", () => {
    expect(() => new OutputCapture(10, { spillBytes: -1 })).toThrow(RangeError);
    expect(() => new OutputCapture(10, { spillBytes: 1.5 })).toThrow(RangeError);
  });
});

describe("finishCapture", () => {
  it("leaves output under the cap alone and writes nothing", async () => {
    const environment = memoryEnvironment();
    const result = await finishCapture(captureOf(100, 1000, ["short\n"]), { environment });
    expect(result).toEqual({ text: "short\n", truncated: false, totalBytes: 6, capturedBytes: 6, omittedBytes: 0 });
    expect(environment.files.size).toBe(0);
  });

  it("writes the whole output to a new file and names it in the notice", async () => {
    const environment = memoryEnvironment();
    const text = "héllo wörld ✓ 🎉\n".repeat(200);
    const result = await finishCapture(captureOf(100, 1_000_000, [text.slice(0, 1000), text.slice(1000)]), { environment, runId: "abc123" });
    expect(result.truncated).toBe(true);
    expect(result.spillPath).toMatch(/^\/mem\/run-\d+\/stdout-abc123\.txt$/);
    expect(result.text).toContain(
      `[OUTPUT TRUNCATED - ${(encoder.encode(text).length - result.capturedBytes).toLocaleString("en-US")} bytes omitted`,
    );
    expect(result.text).toContain(`[the whole output is in ${result.spillPath}: read it in parts]`);
    expect(await environment.readFile(result.spillPath!)).toEqual(encoder.encode(text));
  });

  it("keeps binary output byte for byte", async () => {
    const environment = memoryEnvironment();
    const binary = Uint8Array.from({ length: 4096 }, (_, index) => (index * 37) % 256);
    const result = await finishCapture(captureOf(100, 1_000_000, [binary]), { environment, knownSecrets: [] });
    expect(await environment.readFile(result.spillPath!)).toEqual(binary);
  });

  it("keeps only the first spillBytes, cut at a character boundary, and says so", async () => {
    const environment = memoryEnvironment();
    // Two-byte characters: 1001 bytes would end inside one.
    const text = "é".repeat(5000);
    const result = await finishCapture(captureOf(100, 1001, [text]), { environment });
    const file = await environment.readFile(result.spillPath!);
    expect(new TextDecoder().decode(file)).toBe("é".repeat(500));
    expect(result.text).toContain(`[its first 1,000 bytes are in ${result.spillPath}: read it in parts]`);
  });

  it("masks secrets in the file as in the output, also where the spillBytes cut splits one", async () => {
    const environment = memoryEnvironment();
    const secret = "hunter2-very-secret-value";
    const before = `key=${secret}\n${"x".repeat(300)}\n${".".repeat(980)}`;
    const text = before + secret + "y".repeat(500);
    // The cut falls 10 characters into the second copy.
    const result = await finishCapture(captureOf(100, before.length + 10, [text], [secret]), { environment, knownSecrets: [secret] });
    const file = new TextDecoder().decode(await environment.readFile(result.spillPath!));
    expect(file.startsWith("key=hunter...alue\n")).toBe(true);
    for (let start = 0; start + 8 <= secret.length; start += 1) expect(file).not.toContain(secret.slice(start, start + 8));
  });

  it(`keeps only the newest ${MAX_SPILL_FILES} files of an environment`, async () => {
    const environment = memoryEnvironment();
    const paths: string[] = [];
    for (let index = 0; index < MAX_SPILL_FILES + 3; index += 1) {
      const result = await finishCapture(captureOf(10, 1000, [`run ${index} `.repeat(10)]), { environment, runId: `r${index}` });
      paths.push(result.spillPath!);
    }
    // One directory for all of them.
    expect(new Set(paths.map((path) => path.slice(0, path.lastIndexOf("/")))).size).toBe(1);
    expect([...environment.files.keys()].sort()).toEqual(paths.slice(3).sort());
  });

  it("returns the output with a note when the environment fails the write", async () => {
    const environment = memoryEnvironment({ writeFault: () => "fail" });
    const result = await finishCapture(captureOf(100, 1000, ["z".repeat(500)]), { environment });
    expect(result.truncated).toBe(true);
    expect(result.spillPath).toBeUndefined();
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment is gone (writing /mem/run-1/stdout-");
  });

  it("does not wait for an environment that stops answering", async () => {
    const environment = memoryEnvironment({ writeFault: () => "hang" });
    const result = await finishCapture(captureOf(100, 1000, ["z".repeat(500)]), { environment, timeoutMs: 50 });
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment did not answer within 50 ms]");
  });

  it("tries nothing when the environment is known to be gone", async () => {
    const environment = memoryEnvironment();
    const result = await finishCapture(captureOf(100, 1000, ["z".repeat(500)]), { environment, unavailable: "the environment failed" });
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment failed]");
    expect(environment.dirs.size).toBe(0);
  });
});
