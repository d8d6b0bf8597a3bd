// What this backend depends on stdin for, against the real SDK and the fake: every command reads
// its header from stdin and hands the rest to a chained command (the wrapper's `sh` → subshell →
// `sh -c`), files are written through stdin, and large input goes in pieces small enough for gRPC.
// The fake cannot show that Modal's own router does the same (see the README).
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModalClient } from "modal";
import { createEnvironment, type ModalEnvironment } from "../../src/index.js";
import { STDIN_PIECE_BYTES } from "../../src/modal-exec.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

describe("stdin", () => {
  let environment: ModalEnvironment;
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

  it("is needed in pieces: the fake, like a gRPC server at its default limit, refuses one 5 MiB write", async () => {
    const client = new ModalClient();
    const sandbox = await client.sandboxes.fromId(environment.sandboxId!);
    try {
      const process = await sandbox.exec(["cat"], { mode: "binary" });
      const writer = process.stdin.getWriter();
      await expect(writer.write(new Uint8Array(5 * 1024 * 1024))).rejects.toThrow(/RESOURCE_EXHAUSTED/);
      await process.closeStdin();
      expect(await process.wait()).toBe(0);
    } finally {
      sandbox.detach();
      client.close();
    }
  });
});
