// A reader slower than the script (`codecall run flood.py | slow-consumer`) slows the script, as a
// slow terminal would: the CLI stops reading the script's output while its own stdout is full, so
// the script blocks on its pipe and the CLI's memory stays flat, and once the reader reads, every
// byte arrives. Before, the CLI read on and queued everything for the reader (270 MB of memory
// for a 200 MiB flood behind a reader that waited 3 s).
import { spawn } from "node:child_process";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, waitForPidFile } from "./support.js";

const MIB = 1024 * 1024;
/** Printed by the script: far more than the pipes between it and the reader hold. */
const FLOOD_MIB = 64;
/** How much the CLI may grow while its reader does not read: a fraction of the flood. */
const MAX_RSS_GROWTH_BYTES = 24 * MIB;

/** The resident memory of a process, from /proc. */
async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

describe("codecall run behind a slow reader", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-slow-reader-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("blocks the script while nobody reads, stays within its memory, then delivers every byte", async () => {
    const started = path.join(dir, "started");
    const finished = path.join(dir, "finished");
    await writeFile(
      path.join(dir, "flood.py"),
      [
        "import os, sys",
        `with open(${JSON.stringify(started)}, "w") as f:`,
        '    f.write("%d\\n" % os.getpid())',
        'line = "x" * 1023 + "\\n"',
        `for _ in range(${FLOOD_MIB} * 1024):`,
        "    sys.stdout.write(line)",
        "sys.stdout.flush()",
        `open(${JSON.stringify(finished)}, "w").close()`,
        "",
      ].join("\n"),
    );
    const child = spawn(process.execPath, [BIN, "run", "flood.py"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // Nothing reads the CLI's stdout yet.
    child.stdout.pause();
    await waitForPidFile(started);
    const before = await rssBytes(child.pid!);
    let peak = before;
    // Long enough for a CLI that queues output to take the whole flood (it reads ~100 MB/s or more).
    for (let sample = 0; sample < 20; sample += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      peak = Math.max(peak, await rssBytes(child.pid!));
    }
    // The script waits on its full pipe: it has not got to its end.
    await expect(access(finished)).rejects.toThrow();
    expect(peak - before).toBeLessThan(MAX_RSS_GROWTH_BYTES);
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => (bytes += chunk.length));
    child.stdout.resume();
    expect(await exited, stderr).toBe(0);
    expect(bytes).toBe(FLOOD_MIB * MIB);
    await access(finished);
  }, 120_000);

  it("delivers every byte a script left in its pipe when it exited, however long the reader waits", async () => {
    // More than a pipe holds, less than what the script's own pipe to codecall holds: the script
    // writes it all and exits while codecall waits on its full stdout (a real pipe, as in a
    // shell: Node's child stdio is a socket pair that would take it all). The rest must not be
    // dropped when codecall stops waiting for the script's streams a while after its exit.
    const TAIL_BYTES = 150 * 1024;
    await writeFile(path.join(dir, "tail.py"), `import sys\nsys.stdout.write("y" * ${TAIL_BYTES})\n`);
    const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
    // The reader waits longer than codecall's grace for a script's streams after its exit (2 s).
    const pipeline = `${quote(process.execPath)} ${quote(BIN)} run tail.py | (sleep 3.5; wc -c)`;
    const shell = spawn("sh", ["-c", pipeline], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    shell.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    shell.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => shell.on("close", resolve)), stderr).toBe(0);
    expect(stdout.trim()).toBe(String(TAIL_BYTES));
  }, 60_000);
});
