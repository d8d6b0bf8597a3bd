/**
 * Output over the cap saved whole to a file in the environment: what the file holds, what the
 * notice says, the bounds (spillBytes, files kept) and an environment that fails or stops
 * answering. Each case runs against an environment that streams the file (`openFileWriter`) and
 * one that takes it whole at the end (`writeFile`); the streamed cases then check what streaming
 * adds: the file grows while the stream runs, secrets split across chunks, a write that fails or
 * stalls mid-stream.
 */
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/execute/output-capture.js";
import { finishCapture, MAX_SPILL_FILES, outputSpill, type SpillTarget } from "../src/execute/spill-output.js";
import { SPILL_QUEUE_BYTES, SPILL_STAGING_BYTES } from "../src/execute/spill-file.js";
import { SPILL_WINDOW_BYTES } from "../src/execute/spill-segmenter.js";
import { drainStream } from "../src/process/collect.js";
import { redactSecrets } from "../src/text/redact.js";
import { createMemoryPair } from "./support/memory-pair.js";
import type { MemoryEnvironmentOptions } from "./support/memory-environment.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Target = Omit<SpillTarget, "environment"> & { unavailable?: string };

function spillOf(environment: SpillTarget["environment"], limit: number, spillBytes: number, target: Target = {}) {
  const { unavailable, ...rest } = target;
  const spill = outputSpill({ environment, spillBytes, capBytes: limit, ...rest });
  const guard = target.knownSecrets === undefined ? {} : { guardSecrets: target.knownSecrets };
  const capture = new OutputCapture(limit, { ...guard, ...(spill === undefined ? {} : { spill }) });
  return {
    push: (chunk: string | Uint8Array) => capture.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk),
    finish: () => finishCapture(capture, spill, unavailable),
  };
}

async function spilled(
  environment: SpillTarget["environment"],
  limit: number,
  spillBytes: number,
  chunks: (string | Uint8Array)[],
  target: Target = {},
) {
  const run = spillOf(environment, limit, spillBytes, target);
  for (const chunk of chunks) run.push(chunk);
  return run.finish();
}

/** `text` in pieces of the given sizes, in turn. */
function pieces(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let offset = 0, index = 0; offset < text.length; index += 1) {
    const size = sizes[index % sizes.length]!;
    out.push(text.slice(offset, offset + size));
    offset += size;
  }
  return out;
}

describe("outputSpill", () => {
  it("is off with spillBytes 0, and rejects a limit that is not a non-negative integer", () => {
    const environment = createMemoryPair(() => 0).environment;
    expect(outputSpill({ environment, spillBytes: 0, capBytes: 10 })).toBeUndefined();
    expect(() => outputSpill({ environment, spillBytes: -1, capBytes: 10 })).toThrow(RangeError);
    expect(() => outputSpill({ environment, spillBytes: 1.5, capBytes: 10 })).toThrow(RangeError);
  });
});

describe.each([
  { mode: "writeFile", options: {} },
  { mode: "openFileWriter", options: { fileWriter: {} } },
] as const)("finishCapture through $mode", ({ options: modeOptions }) => {
  function memoryEnvironment(options: MemoryEnvironmentOptions = {}) {
    return createMemoryPair(() => 0, { ...modeOptions, ...options }).environment;
  }

  it("leaves output under the cap alone and writes nothing", async () => {
    const environment = memoryEnvironment();
    const result = await spilled(environment, 100, 1000, ["short\n"]);
    expect(result).toEqual({ text: "short\n", truncated: false, totalBytes: 6, capturedBytes: 6, omittedBytes: 0 });
    expect(environment.files.size).toBe(0);
  });

  it("writes the whole output to a new file and names it in the notice", async () => {
    const environment = memoryEnvironment();
    const text = "héllo wörld ✓ 🎉\n".repeat(200);
    const result = await spilled(environment, 100, 1_000_000, [text.slice(0, 1000), text.slice(1000)], { runId: "abc123" });
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
    const result = await spilled(environment, 100, 1_000_000, [binary], { knownSecrets: [] });
    expect(await environment.readFile(result.spillPath!)).toEqual(binary);
  });

  it("keeps only the first spillBytes, cut at a character boundary, and says so", async () => {
    const environment = memoryEnvironment();
    // Two-byte characters: 1001 bytes would end inside one.
    const text = "é".repeat(5000);
    const result = await spilled(environment, 100, 1001, [text]);
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
    const result = await spilled(environment, 100, before.length + 10, [text], { knownSecrets: [secret] });
    const file = new TextDecoder().decode(await environment.readFile(result.spillPath!));
    expect(file.startsWith("key=hunter...alue\n")).toBe(true);
    for (let start = 0; start + 8 <= secret.length; start += 1) expect(file).not.toContain(secret.slice(start, start + 8));
  });

  it("saves the output under a spillBytes no array could hold (a limit, not a size to allocate)", async () => {
    const environment = memoryEnvironment();
    const text = "big limit\n".repeat(500);
    const result = await spilled(environment, 100, Number.MAX_SAFE_INTEGER, [text]);
    expect(result.text).toContain(`[the whole output is in ${result.spillPath}: read it in parts]`);
    expect(decoder.decode(await environment.readFile(result.spillPath!))).toBe(text);
  });

  it(`keeps only the newest ${MAX_SPILL_FILES} files of an environment`, async () => {
    const environment = memoryEnvironment();
    const paths: string[] = [];
    for (let index = 0; index < MAX_SPILL_FILES + 3; index += 1) {
      const result = await spilled(environment, 10, 1000, [`run ${index} `.repeat(10)], { runId: `r${index}` });
      paths.push(result.spillPath!);
    }
    // Each in a fresh private directory of its own; the oldest three went with theirs.
    const directories = paths.map((path) => path.slice(0, path.lastIndexOf("/")));
    expect(new Set(directories).size).toBe(paths.length);
    expect([...environment.files.keys()].sort()).toEqual(paths.slice(3).sort());
    expect(directories.filter((directory) => environment.dirs.has(directory))).toEqual(directories.slice(3));
  });

  it("removes the directory of a file it gives up", async () => {
    const environment = memoryEnvironment({ writeFault: () => "fail" });
    await spilled(environment, 100, 1000, ["z".repeat(500)]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...environment.dirs]).toEqual([]);
  });

  it("returns the output with a note when the environment fails the file", async () => {
    const environment = memoryEnvironment({ writeFault: () => "fail" });
    const result = await spilled(environment, 100, 1000, ["z".repeat(500)]);
    expect(result.truncated).toBe(true);
    expect(result.spillPath).toBeUndefined();
    expect(result.text).toMatch(/\[the whole output could not be saved to a file: the environment is gone \((writing|opening) \/mem\/run-1\/stdout-/);
  });

  it("does not wait for an environment that stops answering", async () => {
    const environment = memoryEnvironment({ writeFault: () => "hang" });
    const result = await spilled(environment, 100, 1000, ["z".repeat(500)], { timeoutMs: 50 });
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment did not answer within 50 ms]");
  });

  it("tries nothing when the environment is known to be gone", async () => {
    const environment = memoryEnvironment();
    const result = await spilled(environment, 100, 1000, ["z".repeat(500)], { unavailable: "the environment failed" });
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment failed]");
    // What was streamed so far is removed (not waited for).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(environment.files.size).toBe(0);
  });
});

describe("a spill streamed with openFileWriter", () => {
  function streamingEnvironment(fileWriter: NonNullable<MemoryEnvironmentOptions["fileWriter"]> = {}) {
    return createMemoryPair(() => 0, { fileWriter }).environment;
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  const secret = "hunter2-very-secret-value";
  /** Lines with secrets of every kind the result masks, about `bytes` long. */
  function secretText(bytes: number): string {
    const kinds = [
      `key=${secret} and more`,
      "auth: Bearer abcdefghijklmnopqrstuvwxyz0123 end",
      "token sk-ABCDEFGHIJKLMNOPQRSTUV here",
      "db postgres://user:pa55word@host/db",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdefgh\n-----END RSA PRIVATE KEY-----",
      "plain line with é and ✓",
    ];
    const lines: string[] = [];
    for (let length = 0, index = 0; length < bytes; index += 1) {
      const line = `${index} ${kinds[index % kinds.length]} ${"x".repeat(index % 97)}\n`;
      lines.push(line);
      length += line.length;
    }
    return lines.join("");
  }

  it("writes the file while the stream runs, not only at its end", async () => {
    const environment = streamingEnvironment();
    const run = spillOf(environment, 1000, 10_000_000, { runId: "live" });
    for (let index = 0; index < 100; index += 1) run.push(`line ${index} ${"y".repeat(1000)}\n`);
    await tick();
    const [path] = [...environment.files.keys()];
    expect(path).toMatch(/stdout-live\.txt$/);
    // Only a small window is held back.
    expect(environment.files.get(path!)!.length).toBeGreaterThan(100 * 1000 - 20 * 1024);
    const result = await run.finish();
    expect(result.spillPath).toBe(path);
    expect(result.text).toContain(`[the whole output is in ${path}: read it in parts]`);
  });

  it("masks secrets in the file as redacting the whole output would, however the chunks split them", async () => {
    const text = secretText(300_000);
    for (const sizes of [[65_536], [1000, 7, 4093], [1, 2, 3, 5, 8, 13, 17_000]]) {
      const environment = streamingEnvironment();
      const result = await spilled(environment, 100, 10_000_000, pieces(text, sizes), { knownSecrets: [secret] });
      const file = decoder.decode(await environment.readFile(result.spillPath!));
      expect(file).toBe(redactSecrets(text, { knownSecrets: [secret] }));
      expect(file).not.toContain("hunter2-very");
    }
  });

  it("keeps binary output byte for byte when nothing in it is masked, also with redaction on", async () => {
    const environment = streamingEnvironment();
    const binary = Uint8Array.from({ length: 300_000 }, (_, index) => (index * 7919 + (index >> 8)) % 256);
    const chunks = [binary.subarray(0, 70_001), binary.subarray(70_001, 70_002), binary.subarray(70_002)];
    const result = await spilled(environment, 100, 10_000_000, chunks, { knownSecrets: [secret] });
    // Buffer.compare: a deep equality of 300,000 elements is slow.
    expect(Buffer.compare(await environment.readFile(result.spillPath!), binary)).toBe(0);
  });

  it("cuts at spillBytes on a character boundary, and past a secret the cut splits, after streaming what came before", async () => {
    const environment = streamingEnvironment();
    const before = "é".repeat(50_000) + "\n";
    // spillBytes ends 10 characters into the secret.
    const spillBytes = encoder.encode(before).length + 10;
    const result = await spilled(environment, 100, spillBytes, pieces(before + secret + " tail\n" + "z".repeat(5000), [4096]), {
      knownSecrets: [secret],
    });
    const file = decoder.decode(await environment.readFile(result.spillPath!));
    expect(file).toBe(before);
    expect(result.text).toContain(`[its first ${(spillBytes - 10).toLocaleString("en-US")} bytes are in ${result.spillPath}`);

    const odd = streamingEnvironment();
    // Two-byte characters: an odd limit ends inside one.
    const cut = await spilled(odd, 100, 100_001, pieces("é".repeat(100_000), [333]));
    expect(decoder.decode(await odd.readFile(cut.spillPath!))).toBe("é".repeat(50_000));
    expect(cut.text).toContain("[its first 100,000 bytes are in");
  });

  it("keeps draining the output when a write fails mid-stream, and notes the failure", async () => {
    const environment = streamingEnvironment({ chunkFault: (_, index) => (index === 1 ? "fail" : undefined) });
    const text = "w".repeat(99) + "\n";
    const chunks = Array.from({ length: 2000 }, (_, index) => `${index}:${text}`);
    // In steps, so the file gets several writes (what is queued meanwhile goes in one).
    const run = spillOf(environment, 1000, 10_000_000);
    for (const [index, chunk] of chunks.entries()) {
      run.push(chunk);
      if (index % 500 === 499) await tick();
    }
    const result = await run.finish();
    const unspilled = await spilled(streamingEnvironment(), 1000, 0, chunks);
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment is gone (writing /mem/run-1/stdout-");
    expect(result.text.endsWith(unspilled.text.slice(-500))).toBe(true);
    expect(result.totalBytes).toBe(unspilled.totalBytes);
    await tick();
    expect(environment.files.size).toBe(0);
  });

  it("does not wait past the timeout for a write that stalls, and the output is whole", async () => {
    const environment = streamingEnvironment({ chunkFault: () => "hang" });
    const chunks = Array.from({ length: 2000 }, (_, index) => `${index} ${"s".repeat(200)}\n`);
    const result = await spilled(environment, 1000, 10_000_000, chunks, { timeoutMs: 50 });
    const unspilled = await spilled(streamingEnvironment(), 1000, 0, chunks);
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment did not answer within 50 ms]");
    expect(result.text.replace(/ \[the whole output could not[^\]]*\]/, "")).toBe(unspilled.text);
  });

  it("does not hold a short output over the cap for the whole timeout when the environment never opens the file", async () => {
    // Nothing ever queues enough for the output's reader to wait, so only the end can notice the hang.
    const hung = createMemoryPair(() => 0, { fileWriter: {}, writeFault: () => "hang" }).environment;
    const result = await spilled(hung, 100, 1000, ["h".repeat(500)], { timeoutMs: 600_000, openMs: 50 });
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment did not open the file within 50 ms]");
  });

  it("never touches the environment for output within the cap, even one that never opens a file", async () => {
    const hung = createMemoryPair(() => 0, { fileWriter: {}, writeFault: () => "hang" }).environment;
    const result = await spilled(hung, 100, 1000, ["short\n"], { timeoutMs: 600_000, openMs: 600_000 });
    expect(result).toEqual({ text: "short\n", truncated: false, totalBytes: 6, capturedBytes: 6, omittedBytes: 0 });
    expect(hung.dirs.size).toBe(0);
  });

  it("notes a file that cannot be created, and writes nothing", async () => {
    const environment = streamingEnvironment();
    const broken = createMemoryPair(() => 0, { fileWriter: {}, writeFault: () => "fail" }).environment;
    const result = await spilled(broken, 100, 1000, ["q".repeat(5000)]);
    expect(result.text).toContain("[the whole output could not be saved to a file: the environment is gone (opening /mem/run-1/stdout-");
    expect(broken.files.size).toBe(0);
    expect(environment.files.size).toBe(0);
  });

  describe("read through drainStream", () => {
    const CHUNK = 64 * 1024;
    const TOTAL = 4 * 1024 * 1024;
    /** TOTAL bytes of ASCII lines in CHUNK pieces, counting what was read. */
    function source() {
      const line = encoder.encode(`${"r".repeat(99)}\n`);
      let read = 0;
      const stream = new ReadableStream<Uint8Array>(
        {
          pull: (controller) => {
            if (read >= TOTAL) return controller.close();
            const chunk = new Uint8Array(CHUNK);
            for (let offset = 0; offset < CHUNK; offset += line.length) chunk.set(line.subarray(0, Math.min(line.length, CHUNK - offset)), offset);
            read += CHUNK;
            controller.enqueue(chunk);
          },
        },
        { highWaterMark: 0 },
      );
      return { stream, read: () => read };
    }

    it("waits for a slow environment, so the bytes queued for it stay bounded", async () => {
      let lag = 0;
      let input = () => 0;
      const environment = streamingEnvironment({
        chunkFault: (path) => {
          // What was read but is not in the file yet, each time a write starts.
          lag = Math.max(lag, input() - (environment.files.get(path)?.length ?? 0));
          return "slow";
        },
      });
      const spill = outputSpill({ environment, spillBytes: 100_000_000, capBytes: 1000, knownSecrets: [secret] })!;
      const capture = new OutputCapture(1000, { guardSecrets: [secret], spill });
      const { stream, read } = source();
      input = read;
      await drainStream(stream, capture);
      const result = await finishCapture(capture, spill);
      expect(result.text).toContain(`[the whole output is in ${result.spillPath}`);
      expect((await environment.readFile(result.spillPath!)).length).toBe(TOTAL);
      // Without the wait the whole output would be queued: 4 MiB.
      // With it: the write in flight, the queue's bound, the segmenter's window and a read or two.
      expect(lag).toBeLessThanOrEqual(SPILL_STAGING_BYTES + SPILL_QUEUE_BYTES + SPILL_WINDOW_BYTES + 2 * CHUNK);
    });

    it("gives up the file when the environment takes nothing for stallMs, and drains the rest", async () => {
      const environment = streamingEnvironment({ chunkFault: () => "hang" });
      const spill = outputSpill({ environment, spillBytes: 100_000_000, capBytes: 1000, stallMs: 50 })!;
      const capture = new OutputCapture(1000, { spill });
      const { stream } = source();
      await drainStream(stream, capture);
      const result = await finishCapture(capture, spill);
      expect(result.totalBytes).toBe(TOTAL);
      expect(result.text).toContain("[the whole output could not be saved to a file: the environment took no part of the file for 50 ms]");
      const unspilled = new OutputCapture(1000);
      await drainStream(source().stream, unspilled);
      expect(result.text.replace(/ \[the whole output could not[^\]]*\]/, "")).toBe(unspilled.finish().text);
    });
  });
});
