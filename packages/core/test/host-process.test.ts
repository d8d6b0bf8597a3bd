// Host processes run for real (Linux): what is read of the process table when a command ends. A
// command that ends its own tree (`treeHeld`, codecall's launcher) costs no read of the table on an
// exit of its own; every other end still sweeps it.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHostProcess, type HostProcess } from "../src/process/host-process.js";
import type { ProcessHost } from "../src/process/process-tree.js";
import { TREE_TAG_VARIABLE } from "../src/process/tree-tag.js";
import { processGone } from "./support/process-gone.js";

/** Node's process table and signals, counting the reads of the table. */
function countingHost(): ProcessHost & { tableReads: number } {
  const host = {
    tableReads: 0,
    kill: (pid: number, signal: NodeJS.Signals | 0) => process.kill(pid, signal),
    readdir: (path: string) => {
      host.tableReads += 1;
      return readdir(path);
    },
    readFile: (path: string, encoding: "latin1") => readFile(path, encoding),
    procfs: true,
    signalNumbers: constants.signals,
  };
  return host;
}

async function start(script: string, host: ProcessHost, treeHeld: boolean): Promise<HostProcess> {
  const tag = `test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const child = spawn("sh", ["-c", script], { env: { ...process.env, [TREE_TAG_VARIABLE]: tag }, detached: true, stdio: "pipe" });
  const empty = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  child.stdout.resume();
  child.stderr.resume();
  return startHostProcess(child, { stdin: new WritableStream(), stdout: empty(), stderr: empty() }, { file: "sh", tag, host, treeHeld });
}

/** The pid a command's first line printed to `file`, once it is there. */
async function pidIn(file: string): Promise<number> {
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.endsWith("\n")) return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(process.platform === "linux")("a host process's end", () => {
  let file: string;
  beforeEach(async () => {
    file = path.join(await mkdtemp(path.join(tmpdir(), "codecall-host-process-")), "pid");
  });
  afterEach(async () => {
    await rm(path.dirname(file), { recursive: true, force: true });
  });

  /** Runs a command that starts `leftover` in the background (noting its pid), then `rest`; what its end did. */
  async function end(leftover: string, rest: string, treeHeld: boolean, options: { kill?: boolean } = {}) {
    const host = countingHost();
    const command = await start(`${leftover} </dev/null >/dev/null 2>&1 & echo $! > ${file}; ${rest}`, host, treeHeld);
    const left = await pidIn(file);
    if (options.kill) await command.kill();
    const exit = await command.wait();
    return { exit, tableReads: host.tableReads, leftGone: await processGone(left) };
  }

  it("with its tree held, an exit of its own reads no process table, and its group is still killed", async () => {
    const ended = await end("sleep 300", "exit 3", true);
    expect(ended.exit).toEqual({ exitCode: 3 });
    expect(ended.tableReads).toBe(0);
    expect(ended.leftGone).toBe(true);
  });

  it("without it, an exit of its own sweeps the table (what left the group is found by its tag)", async () => {
    const ended = await end("setsid sleep 300", "exit 0", false);
    expect(ended.exit).toEqual({ exitCode: 0 });
    expect(ended.tableReads).toBeGreaterThan(0);
    expect(ended.leftGone).toBe(true);
  });

  it("with its tree held, an exit by SIGKILL still sweeps (the tree's holder may have had no chance to)", async () => {
    const ended = await end("setsid sleep 300", "kill -9 $$", true);
    expect(ended.exit).toMatchObject({ signal: "SIGKILL" });
    expect(ended.tableReads).toBeGreaterThan(0);
    expect(ended.leftGone).toBe(true);
  });

  it("with its tree held, an exit by another signal still sweeps (a script can end its launcher with SIGUSR1)", async () => {
    const ended = await end("setsid sleep 300", "kill -USR1 $$", true);
    expect(ended.exit).toMatchObject({ signal: "SIGUSR1" });
    expect(ended.tableReads).toBeGreaterThan(0);
    expect(ended.leftGone).toBe(true);
  });

  it("with its tree held, a kill sweeps the table", async () => {
    const ended = await end("setsid sleep 300", "sleep 300", true, { kill: true });
    expect(ended.exit).toMatchObject({ signal: "SIGKILL" });
    expect(ended.tableReads).toBeGreaterThan(0);
    expect(ended.leftGone).toBe(true);
  });
});

describe("startHostProcess: a child that cannot start", () => {
  it("names the working directory too when Node reports ENOENT, as it does for a missing one", async () => {
    const child = spawn("sh", ["-c", "true"], { cwd: path.join(tmpdir(), "codecall-no-such-dir", "x"), detached: true, stdio: "pipe" });
    const empty = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    const started = startHostProcess(
      child,
      { stdin: new WritableStream(), stdout: empty(), stderr: empty() },
      { file: "sh", tag: "t", host: countingHost() },
    );
    await expect(started).rejects.toMatchObject({
      code: "ENVIRONMENT_FAILED",
      message: "Could not start sh: spawn sh ENOENT (the program is not on PATH, or the working directory does not exist)",
    });
  });
});
