// What this backend depends on stdin for, against the real SDK and the fake: every command reads
// its header from stdin and hands the rest to a chained command (the wrapper's `sh` → subshell →
// `sh -c`), files are written through stdin, large input goes in pieces small enough for gRPC, and
// small writes made while one is in flight go out together (the environment agent's frames).
// The fake cannot show that Modal's own router does the same (see the README).
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModalClient, type ContainerProcess } from "modal";
import { createEnvironment, type ModalEnvironment } from "../../src/index.js";
import { STDIN_PIECE_BYTES, stdinWriter } from "../../src/stdin-writer.js";
import { FakeModal, GRPC } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describe("stdin", () => {
  let environment: ModalEnvironment;
  /** Runs `test` on a `cat` started in the suite's sandbox through a client of the test's own. */
  async function withCat(test: (process: ContainerProcess) => Promise<void>): Promise<void> {
    const client = new ModalClient();
    const sandbox = await client.sandboxes.fromId(environment.sandboxId!);
    try {
      await test(await sandbox.exec(["cat"], { mode: "binary" }));
    } finally {
      sandbox.detach();
      client.close();
    }
  }
  beforeAll(async () => {
    environment = await createEnvironment();
  });
  afterAll(() => environment?.close());

  it("reaches commands chained after the wrapper: a read, a pipe, a second reader", async () => {
    const result = await environment.execute('read first; cat | tr a-z A-Z; echo "first=$first"', { stdin: "one\ntwo\nthree\n" });
    expect(result).toMatchObject({ exitCode: 0, stdout: "TWO\nTHREE\nfirst=one\n" });
    const split = await environment.execute("head -c 3 > /dev/null; cat", { stdin: "abcdef" });
    expect(split.stdout).toBe("def");
  });

  it("writes a 10 MB binary file intact, in pieces of at most 1 MiB", async () => {
    const data = randomBytes(10 * 1024 * 1024 + 17);
    const before = fake.calls("TaskExecStdinWrite").length;
    const dir = await environment.tempDir();
    await environment.writeFile(`${dir}/big.bin`, data);
    const writes = fake.calls("TaskExecStdinWrite").slice(before);
    const sizes = writes.map((call) => (call.request.data as { bytes: number }).bytes);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(STDIN_PIECE_BYTES);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(data.length);
    const check = await environment.execute(`sha256sum ${dir}/big.bin | cut -d' ' -f1; rm -r ${dir}`);
    expect(check.stdout.trim()).toBe(createHash("sha256").update(data).digest("hex"));
  });

  it("is needed in pieces: the fake, like a gRPC server at its default limit, refuses one 5 MiB write", () =>
    withCat(async (process) => {
      const writer = process.stdin.getWriter();
      await expect(writer.write(new Uint8Array(5 * 1024 * 1024))).rejects.toThrow(/RESOURCE_EXHAUSTED/);
      await process.closeStdin();
      expect(await process.wait()).toBe(0);
    }));

  it("gathers the small writes made while one is in flight into the next call, in order", () =>
    withCat(async (process) => {
      const before = fake.calls("TaskExecStdinWrite").length;
      const writer = stdinWriter(process.stdin, { gather: true, stop: new AbortController().signal, onBroken: () => {} }).getWriter();
      const pieces = Array.from({ length: 200 }, (_, index) => `${index},`);
      const written = Promise.all([...pieces.map((piece) => writer.write(new TextEncoder().encode(piece))), writer.close()]);
      const [output] = await Promise.all([new Response(process.stdout).text(), written]);
      expect(output).toBe(pieces.join(""));
      // The first piece alone (nothing was in flight), the other 199 together, then the EOF.
      expect(fake.calls("TaskExecStdinWrite").length - before).toBe(3);
      expect(await process.wait()).toBe(0);
    }));

  it("gives a gathered command up when a call fails, since its input now has a hole", () =>
    withCat(async (process) => {
      let onBroken: (error: unknown) => void = () => {};
      const broken = new Promise<unknown>((resolve) => (onBroken = resolve));
      const writer = stdinWriter(process.stdin, { gather: true, stop: new AbortController().signal, onBroken }).getWriter();
      await fake.fail("TaskExecStdinWrite", GRPC.INVALID_ARGUMENT, { times: 1, sandboxId: environment.sandboxId });
      // Taken at once: the failure is only known once the call comes back.
      await writer.write(new TextEncoder().encode("lost"));
      expect(String(await broken)).toMatch(/INVALID_ARGUMENT: injected by the test/);
      await expect(writer.write(new TextEncoder().encode("after"))).rejects.toThrow(/INVALID_ARGUMENT: injected by the test/);
      await process.closeStdin();
      expect(await process.wait()).toBe(0);
    }));
});
