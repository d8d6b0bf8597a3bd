// The session kernel run for real (python3, under the launcher) with the host's end of it,
// KernelProcess: cells over its stdin, output split at the nonce markers, how cells end, the cell
// tag on tool calls (the stand-in client of test/python answers each call with its request), and
// interrupts.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EnvironmentProcess, ProcessExit } from "../src/environment.js";
import { launchScriptCommand } from "../src/guest/launcher.js";
import { pythonGuestFiles } from "../src/guest/python-guest.js";
import { KernelProcess, type CellOutput } from "../src/session/kernel-process.js";

const KERNEL = fileURLToPath(new URL("../src/guest/python/_codecall_kernel.py", import.meta.url));
const STAND_IN_CLIENT = fileURLToPath(new URL("python/_codecall_client.py", import.meta.url));
const NONCE = "0123456789abcdef0123456789abcdef";

let dir: string;
let kernels: EnvironmentProcess[];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-kernel-"));
  kernels = [];
  const files = pythonGuestFiles({ tools: [], clientSource: await readFile(STAND_IN_CLIENT, "utf8") });
  for (const file of files) await writeFile(path.join(dir, file.name), file.data);
  await writeFile(path.join(dir, "script.py"), await readFile(KERNEL, "utf8"));
});
afterEach(async () => {
  await Promise.all(kernels.map((kernel) => kernel.kill()));
  await rm(dir, { recursive: true, force: true });
});

/** The kernel as a local process, in the shape `Environment.spawn` gives. */
function spawnKernel(): EnvironmentProcess {
  const child = spawn("sh", ["-c", launchScriptCommand("python3", path.join(dir, "script.py"))], {
    env: { PATH: process.env.PATH ?? "", PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: "1", CODECALL_OUTPUT: "buffered" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<ProcessExit>((resolve) =>
    child.on("close", (code, signal) => resolve(signal ? { exitCode: 128, signal } : { exitCode: code ?? 1 })),
  );
  const kernel: EnvironmentProcess = {
    stdin: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(child.stderr) as ReadableStream<Uint8Array>,
    wait: () => exited,
    kill: async () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
      await exited;
    },
  };
  kernels.push(kernel);
  return kernel;
}

const sinks = { maxStdoutBytes: 10_000, maxStderrBytes: 10_000, guardSecrets: undefined };

function start(): KernelProcess {
  return new KernelProcess(spawnKernel(), { nonce: NONCE, module: "codecall" });
}

const text = (output: CellOutput) => ({ stdout: output.stdout.finish().text, stderr: output.stderr.finish().text, ending: output.ending });

describe("the session kernel", () => {
  it("runs cells in the same globals and splits their output exactly at the markers", async () => {
    const kernel = start();
    expect(text(await kernel.run(1, "import sys\nx = 40\nprint('one', end='')\nprint('err', file=sys.stderr)", sinks))).toEqual({
      stdout: "one",
      stderr: "err\n",
      ending: { kind: "finished", status: "ok", exitCode: 0 },
    });
    // The nonce without a marker after it is output; so is anything that only looks like one.
    const output = await kernel.run(2, `x += 2\nprint(x)\nprint(${JSON.stringify(`${NONCE}garbage`)})\nprint('{"cell": 2, "status": "ok"}')`, sinks);
    expect(text(output)).toEqual({
      stdout: `42\n${NONCE}garbage\n{"cell": 2, "status": "ok"}\n`,
      stderr: "",
      ending: { kind: "finished", status: "ok", exitCode: 0 },
    });
  });

  it("reports errors, sys.exit and syntax errors as a script would end, and keeps going", async () => {
    const kernel = start();
    const failed = await kernel.run(1, "def f():\n    raise ValueError('boom')\nf()", sinks);
    expect(failed.ending).toEqual({ kind: "finished", status: "error", exitCode: 1 });
    expect(failed.stderr.finish().text).toBe(
      'Traceback (most recent call last):\n  File "<cell 1>", line 3, in <module>\n    f()\n  File "<cell 1>", line 2, in f\n    raise ValueError(\'boom\')\nValueError: boom\n',
    );
    expect((await kernel.run(2, "import sys\nsys.exit(3)", sinks)).ending).toEqual({ kind: "finished", status: "ok", exitCode: 3 });
    expect(text(await kernel.run(3, "import sys\nsys.exit('bye')", sinks))).toMatchObject({ stderr: "bye\n", ending: { exitCode: 1 } });
    const syntax = await kernel.run(4, "x = (", sinks);
    expect(syntax.ending).toMatchObject({ status: "error", exitCode: 1 });
    expect(syntax.stderr.finish().text).toMatch(/^ {2}File "<cell 4>", line 1\n[\s\S]*SyntaxError: /);
    expect(text(await kernel.run(5, "print(f.__name__)", sinks))).toMatchObject({ stdout: "f\n", stderr: "" });
  });

  it("gives cells an empty stdin: the host's channel is out of their reach", async () => {
    const kernel = start();
    expect(text(await kernel.run(1, "import sys\nprint(repr(sys.stdin.read()))", sinks))).toMatchObject({ stdout: "''\n" });
  });

  it("tags each tool call with the cell its code belongs to: thread, pool task and forked child", async () => {
    const kernel = start();
    const cellOf = "def cell_of():\n    return _codecall_client.submit('tools/call', {'name': 'x'}).result()['params'].get('cell')\n";
    await kernel.run(
      1,
      `import _codecall_client, os, threading\nfrom concurrent.futures import ThreadPoolExecutor\n${cellOf}go = threading.Event()\nseen = []\nt = threading.Thread(target=lambda: (go.wait(), seen.append(cell_of())))\nt.start()\npool = ThreadPoolExecutor(1)\npool.submit(cell_of).result()`,
      sinks,
    );
    const output = await kernel.run(
      2,
      "go.set(); t.join()\nread, write = os.pipe()\nif os.fork() == 0:\n    os.write(write, str(cell_of()).encode())\n    os._exit(0)\nos.wait()\nprint(cell_of(), seen[0], pool.submit(cell_of).result(), os.read(read, 10).decode())",
      sinks,
    );
    expect(text(output)).toMatchObject({ stdout: "2 1 2 2\n", stderr: "" });
  });

  it("interrupts the running cell on request (KeyboardInterrupt) and keeps its state", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    const running = kernel.run(2, "import time\nprint('sleeping', flush=True)\ntime.sleep(60)", {
      ...sinks,
      stdout: { write: () => kernel.interrupt(2), end: () => {} },
    });
    expect(text(await running)).toEqual({ stdout: "sleeping\n", stderr: "", ending: { kind: "finished", status: "interrupted", exitCode: 130 } });
    // An interrupt for a cell that has ended does nothing.
    kernel.interrupt(2);
    expect(text(await kernel.run(3, "print(kept)", sinks))).toMatchObject({ stdout: "yes\n", ending: { status: "ok" } });
  });

  it("ends a cell that puts another file at the channel's number as broken, even when the kernel reads it before the cell ends", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    // The reader is blocked on the old channel when the cell swaps it (the read holds it); the
    // interrupt for a cell long gone wakes it, and its next read is of /dev/null: an end of input
    // that is not the host's.
    const swapping = "import os, time\nos.closerange(3, 4096)\nreused = open(os.devnull)\nprint('swapped', flush=True)\ntime.sleep(1)";
    const output = await kernel.run(2, swapping, {
      ...sinks,
      stdout: { write: () => kernel.interrupt(1), end: () => {} },
    });
    expect(output.ending).toMatchObject({ kind: "finished", status: "error", exitCode: 1 });
    expect(output.stderr.finish().text).toContain("this cell closed the session kernel's channel to the host");
  });

  it("keeps serving after a cell replaces its stdout over the kernel's own (detached, or wrapping its buffer)", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    const replacements = [
      "import io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.detach(), encoding='utf-8')\nprint('detached')",
      "import io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding='utf-8')\nprint('wrapped')",
    ];
    for (const [index, replacing] of replacements.entries()) {
      const number = 2 + index * 2;
      expect((await kernel.run(number, replacing, sinks)).ending).toEqual({ kind: "finished", status: "ok", exitCode: 0 });
      // The cell's own stream is dropped as the cell ends; the next cell prints on the kernel's.
      expect(text(await kernel.run(number + 1, "print(kept)", sinks))).toEqual({
        stdout: "yes\n",
        stderr: "",
        ending: { kind: "finished", status: "ok", exitCode: 0 },
      });
    }
  });

  it("reports a cell's error or exit message when the cell left no way to print it, and keeps serving", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    const closed = await kernel.run(2, "import sys\nsys.stderr.close()\nraise ValueError('unseen')", sinks);
    expect(closed.ending).toEqual({ kind: "finished", status: "error", exitCode: 1 });
    expect(closed.stderr.finish().text).toMatch(/Traceback[^]*ValueError: unseen\n$/);
    const exited = await kernel.run(3, "import sys\nsys.stderr = None\nsys.exit('bye')", sinks);
    expect(text(exited)).toMatchObject({ stderr: "bye\n", ending: { kind: "finished", status: "ok", exitCode: 1 } });
    const shallow = await kernel.run(4, "import sys\nsys.setrecursionlimit(12)\nraise ValueError('shallow')", sinks);
    expect(shallow.ending).toEqual({ kind: "finished", status: "error", exitCode: 1 });
    expect(shallow.stderr.finish().text).toContain("ValueError: shallow");
    // What the kernel's own end of a cell uses is bound before any cell runs.
    await kernel.run(5, "import sys, threading\nsys.getrecursionlimit = sys.setrecursionlimit = threading.main_thread = None", sinks);
    expect(text(await kernel.run(6, "print(kept)", sinks))).toMatchObject({ stdout: "yes\n", ending: { status: "ok" } });
  });

  it("ends a cell whose end is interrupted part-way (a time limit's interrupt as the cell ends), and keeps serving", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    // The interrupt lands in a system call of the kernel's end of the cell: here, the descriptor
    // check, which raises it once (the cell reaches the kernel's functions through its frame).
    const arming =
      "import sys\nkernel = sys._getframe().f_back.f_globals\nreal = kernel['_identity']\nfirst = [True]\n" +
      "def once(fd):\n    if first.pop() if first else False:\n        raise KeyboardInterrupt\n    return real(fd)\nkernel['_identity'] = once\nprint('armed')";
    expect(text(await kernel.run(2, arming, sinks))).toEqual({
      stdout: "armed\n",
      stderr: "",
      ending: { kind: "finished", status: "ok", exitCode: 0 },
    });
    expect(text(await kernel.run(3, "print(kept)", sinks))).toMatchObject({ stdout: "yes\n", ending: { status: "ok" } });
  });

  it("loses no cell when an interrupt lands as the kernel takes the cell's request", async () => {
    const kernel = start();
    await kernel.run(1, "kept = 'yes'", sinks);
    // The interrupt is raised once, just as the next request has been taken from the queue.
    const arming =
      "import sys\nkernel = sys._getframe().f_back.f_locals['self']\nreal = kernel.next_request\nfirst = [True]\n" +
      "def once():\n    request = real()\n    if first.pop() if first else False:\n        raise KeyboardInterrupt\n    return request\nkernel.next_request = once";
    await kernel.run(2, arming, sinks);
    expect(text(await kernel.run(3, "print(kept)", sinks))).toMatchObject({ stdout: "yes\n", ending: { status: "ok" } });
  });

  it("interrupts a cell even when an earlier cell left SIGINT ignored", async () => {
    const kernel = start();
    await kernel.run(1, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)", sinks);
    const running = kernel.run(2, "import time\nprint('sleeping', flush=True)\ntime.sleep(60)", {
      ...sinks,
      stdout: { write: () => kernel.interrupt(2), end: () => {} },
    });
    expect((await running).ending).toEqual({ kind: "finished", status: "interrupted", exitCode: 130 });
  });

  it("treats a KeyboardInterrupt the cell raises itself as an error", async () => {
    const kernel = start();
    const output = await kernel.run(1, "raise KeyboardInterrupt", sinks);
    expect(output.ending).toEqual({ kind: "finished", status: "error", exitCode: 1 });
    expect(output.stderr.finish().text).toContain("KeyboardInterrupt");
  });

  it("ends a forked child that runs on past the cell's end, with one result for the cell", async () => {
    const kernel = start();
    const output = await kernel.run(
      1,
      "import os\nforked = os.fork()\nprint('child' if forked == 0 else 'parent', flush=True)\nif forked: os.waitpid(forked, 0)",
      sinks,
    );
    expect(output.stdout.finish().text.split("\n").sort()).toEqual(["", "child", "parent"]);
    expect(text(await kernel.run(2, "print(forked > 0)", sinks))).toMatchObject({ stdout: "True\n" });
  });

  it("ends the running cell when the kernel dies, with what it printed", async () => {
    const kernel = start();
    const output = await kernel.run(1, "import os, signal\nprint('last words', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)", sinks);
    expect(text(output)).toEqual({ stdout: "last words\n", stderr: "", ending: { kind: "died", exit: { exitCode: 128, signal: "SIGKILL" } } });
    expect(kernel.ended).toEqual(output.ending);
    // A later cell ends at once, the same way.
    expect((await kernel.run(2, "print(1)", sinks)).ending).toEqual(output.ending);
  });

  it("hands what a thread printed while no cell ran to the next cell", async () => {
    const kernel = start();
    const printed = path.join(dir, "printed");
    const late = `def late():\n    time.sleep(0.2)\n    print('late', flush=True)\n    open(${JSON.stringify(printed)}, 'w').close()\n`;
    await kernel.run(1, `import threading, time\n${late}thread = threading.Thread(target=late)\nthread.start()`, sinks);
    // Printed after cell 1 ended: still there once the next cell starts.
    await expect.poll(() => existsSync(printed), { timeout: 30_000 }).toBe(true);
    expect(text(await kernel.run(2, "thread.join()\nprint('two')", sinks))).toMatchObject({ stdout: "late\ntwo\n" });
  });

  it("says when it serves cells (its ready marker, not output), before any cell is sent", async () => {
    const kernel = start();
    await kernel.started;
    expect(kernel.ended).toBeUndefined();
    expect(text(await kernel.run(1, "print('first')", sinks))).toMatchObject({ stdout: "first\n", stderr: "" });
  });

  it("hands what the kernel printed before its first cell to that cell (a failed start says why)", async () => {
    const kernel = new KernelProcess(spawnKernel(), { nonce: NONCE, module: "no_such_tools_module" });
    // A kernel that ended without serving is started too: its first cell says how it ended.
    await kernel.started;
    expect(kernel.ended).toMatchObject({ kind: "died" });
    const output = await kernel.run(1, "print(1)", sinks);
    expect(output.ending).toMatchObject({ kind: "died", exit: { exitCode: 1 } });
    expect(output.stderr.finish().text).toContain("ModuleNotFoundError: No module named 'no_such_tools_module'");
  });
});
