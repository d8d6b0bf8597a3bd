/**
 * `describeEnvironment()`: the cases every backend must pass, written only against the
 * Environment contract. Commands are POSIX `sh` with coreutils, so they run on any backend.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodecallError, type Environment, type EnvironmentCapabilities, type ExecResult } from "@codecall/core";
import { shellQuote } from "@codecall/core/plugin-kit";
import { describeIntegration } from "./integration.js";

export interface EnvironmentSuiteOptions {
  /** Suite title, e.g. "local" or "docker". */
  name: string;
  /** Makes a fresh environment; the suite closes it. */
  create: () => Promise<Environment> | Environment;
  /**
   * What the backend promises. The environment must declare these `capabilities`, and the suite
   * holds it to them: with `hostSockets`, a process inside connects to a Unix socket the host
   * made; with `maxConcurrentExec`, twice that many commands at once all succeed (queued, not
   * refused); with `streamingStdio`, a spawned process answers input while it runs. Omitted: the
   * environment's own declaration is tested.
   */
  capabilities?: Partial<EnvironmentCapabilities>;
  /** When set, the service is missing: the suite is skipped (or fails under CI) with this reason. */
  unavailableReason?: string;
  /** Per-test timeout in ms (default 30 s; raise it for slow remote backends). */
  testTimeoutMs?: number;
}

const text = new TextDecoder();

/**
 * Runs `command`, which writes `marker` once it has done what a case checks, under a timeout that
 * must end it: 1 s, and longer again (4 s, 16 s) while the environment was too slow to get as far
 * as `marker` before the kill — a shell can take over a second to start on a loaded machine, and
 * then there is nothing printed to keep. The result is the first run that got there (or the last).
 */
async function executeUntilMarked(environment: Environment, command: string, marker: string): Promise<ExecResult> {
  for (const timeoutMs of [1_000, 4_000]) {
    await environment.remove(marker);
    const result = await environment.execute(command, { timeoutMs });
    if ((await environment.executeOneshot(`test -e ${shellQuote(marker)} && echo reached`)).stdout.trim() === "reached") return result;
  }
  await environment.remove(marker);
  return environment.execute(command, { timeoutMs: 16_000 });
}

/**
 * A command that prints "gone" once the process whose pid is in `pidFile` has ended (a zombie
 * waiting for init counts as ended), polling briefly because a kill takes a moment to land.
 * Linux `/proc`, like every codecall backend.
 */
export function processGoneCommand(pidFile: string): string {
  const file = shellQuote(pidFile);
  return (
    `p=$(cat ${file}); i=0; while [ $i -lt 50 ]; do ` +
    `if [ ! -e /proc/$p ] || grep -q '^State:[[:space:]]*Z' /proc/$p/status 2>/dev/null; then echo gone; exit 0; fi; ` +
    `i=$((i+1)); sleep 0.1; done; echo alive`
  );
}

export function describeEnvironment(options: EnvironmentSuiteOptions): void {
  describeIntegration(`Environment conformance: ${options.name}`, options.unavailableReason, () => {
    let environment: Environment;
    let scratch: string;
    const timeout = options.testTimeoutMs ?? 30_000;
    const q = shellQuote;

    beforeAll(async () => {
      environment = await options.create();
      scratch = await environment.tempDir();
    }, timeout * 2);

    afterAll(async () => {
      if (!environment) return;
      await environment.executeOneshot(`rm -rf ${q(scratch)}`).catch(() => {});
      await environment.close();
    }, timeout);

    describe("execute", () => {
      it(
        "separates stdout and stderr and reports the exit code",
        async () => {
          const result = await environment.execute("printf out; printf err >&2; exit 3");
          expect(result).toMatchObject({ stdout: "out", stderr: "err", exitCode: 3, timedOut: false });
        },
        timeout,
      );

      it(
        "runs through a POSIX shell (pipes, variables, quoting)",
        async () => {
          const result = await environment.execute(`x='a b'; printf '%s|' "$x" | tr a-z A-Z`);
          expect(result.stdout).toBe("A B|");
          expect(result.exitCode).toBe(0);
        },
        timeout,
      );

      it(
        "runs in the given working directory",
        async () => {
          const result = await environment.execute("pwd -P", { cwd: scratch });
          const real = await environment.execute(`cd ${q(scratch)} && pwd -P`);
          expect(result.stdout.trim()).toBe(real.stdout.trim());
        },
        timeout,
      );

      it(
        "rejects a working directory that does not exist",
        async () => {
          await expect(environment.execute("true", { cwd: `${scratch}/missing/dir` })).rejects.toThrow(/missing\/dir/);
        },
        timeout,
      );

      it(
        "sets env on top of the default env",
        async () => {
          const result = await environment.execute('printf "%s|%s" "$CODECALL_A" "$CODECALL_B"', {
            env: { CODECALL_A: "one", CODECALL_B: 'it\'s "two" $x' },
          });
          expect(result.stdout).toBe(`one|it's "two" $x`);
          const withDefault = await environment.execute('printf "%s" "${PATH:+set}"', { env: { CODECALL_A: "1" } });
          expect(withDefault.stdout).toBe("set");
        },
        timeout,
      );

      it(
        "gives a command only the given env with clearEnv",
        async () => {
          const defaults = await environment.defaultEnv();
          expect(typeof defaults).toBe("object");
          const result = await environment.execute('printf "%s|%s" "$CODECALL_ONLY" "${HOME:-unset}"', {
            env: { CODECALL_ONLY: "yes" },
            clearEnv: true,
          });
          expect(result.stdout).toBe("yes|unset");
        },
        timeout,
      );

      it(
        "feeds stdin, text and binary",
        async () => {
          const textResult = await environment.execute("cat", { stdin: "line 1\nline 2\n" });
          expect(textResult.stdout).toBe("line 1\nline 2\n");
          const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
          const binary = await environment.execute("od -An -v -tx1 | tr -d ' \\n'", { stdin: bytes });
          expect(binary.stdout).toBe(Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(""));
        },
        timeout,
      );

      it(
        "gives an empty stdin when none is passed",
        async () => {
          const result = await environment.execute("cat; echo end");
          expect(result.stdout).toBe("end\n");
        },
        timeout,
      );

      it(
        "keeps large output intact",
        async () => {
          const result = await environment.execute("head -c 3000000 /dev/zero | tr '\\0' x");
          expect(result.stdout.length).toBe(3_000_000);
          expect(result.truncated ?? false).toBe(false);
        },
        timeout,
      );

      it(
        "caps output with maxOutputBytes, keeping head and tail",
        async () => {
          const result = await environment.execute("printf START; head -c 1000000 /dev/zero | tr '\\0' x; printf END", {
            maxOutputBytes: 1000,
          });
          expect(result.truncated).toBe(true);
          expect(result.stdout.startsWith("START")).toBe(true);
          expect(result.stdout.endsWith("END")).toBe(true);
          expect(result.stdout.length).toBeLessThan(1200);
        },
        timeout,
      );

      it(
        "kills the whole process tree on timeout and keeps the partial output",
        async () => {
          const pidFile = `${scratch}/timeout-child.pid`;
          const result = await executeUntilMarked(environment, `echo partial; sleep 300 & echo $! > ${q(pidFile)}; wait`, pidFile);
          expect(result.timedOut).toBe(true);
          expect(result.exitCode).not.toBe(0);
          expect(result.stdout).toContain("partial");
          const alive = await environment.executeOneshot(processGoneCommand(pidFile));
          expect(alive.stdout.trim()).toBe("gone");
        },
        timeout,
      );

      it(
        "kills on timeout also what left the process group, even a double-forked daemon",
        async () => {
          const pidFile = `${scratch}/escaped.pid`;
          // setsid + a background job whose parent exits at once: a new session, reparented to
          // init, so neither a group kill nor a walk down from the command finds it.
          const command =
            `command -v setsid >/dev/null || { echo no setsid; exit 0; }; ` +
            `setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${q(pidFile)}' </dev/null >/dev/null 2>&1; echo escaped; ` +
            `: > ${q(`${scratch}/escaped.marker`)}; sleep 300`;
          const result = await executeUntilMarked(environment, command, `${scratch}/escaped.marker`);
          // An environment without setsid cannot start such a process, so there is nothing to kill.
          if (result.stdout === "no setsid\n") return;
          expect(result.timedOut).toBe(true);
          expect(result.stdout).toBe("escaped\n");
          expect((await environment.executeOneshot(processGoneCommand(pidFile))).stdout.trim()).toBe("gone");
        },
        timeout,
      );

      it(
        "ends what a command leaves running in the background, instead of waiting for it",
        async () => {
          const pidFile = `${scratch}/background.pid`;
          const result = await environment.execute(`sleep 300 & echo $! > ${q(pidFile)}; echo started`);
          expect(result.stdout).toBe("started\n");
          expect(result.exitCode).toBe(0);
          const alive = await environment.executeOneshot(processGoneCommand(pidFile));
          expect(alive.stdout.trim()).toBe("gone");
        },
        timeout,
      );

      it(
        "ends what left the process group when the command exits normally, even a double-forked daemon",
        async () => {
          const pidFile = `${scratch}/exit-daemon.pid`;
          // As in the timeout case, but the command exits on its own once the daemon is up. A timeout
          // makes the command killable (what executeCode's scripts are); nothing here comes near it.
          const command =
            `command -v setsid >/dev/null || { echo no setsid; exit 0; }; ` +
            `setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${q(pidFile)}' </dev/null >/dev/null 2>&1; ` +
            `while [ ! -s ${q(pidFile)} ]; do sleep 0.05; done; echo exiting`;
          const result = await environment.execute(command, { timeoutMs: 60_000 });
          if (result.stdout === "no setsid\n") return;
          expect(result).toMatchObject({ stdout: "exiting\n", exitCode: 0, timedOut: false });
          expect((await environment.executeOneshot(processGoneCommand(pidFile))).stdout.trim()).toBe("gone");
        },
        timeout,
      );

      it(
        "stops a command when its signal aborts",
        async () => {
          const controller = new AbortController();
          const pending = environment.execute("sleep 300", { signal: controller.signal });
          setTimeout(() => controller.abort(), 200);
          const result = await pending;
          expect(result.exitCode).not.toBe(0);
        },
        timeout,
      );

      it(
        "runs many commands at once, more than maxConcurrentExec allows by queueing",
        async () => {
          const limit = environment.capabilities.maxConcurrentExec;
          const count = limit === undefined ? 8 : limit * 2;
          // Half of them oneshots: they share the same limit, and must not be refused either.
          const results = await Promise.all(
            Array.from({ length: count }, (_, index) =>
              index % 2 ? environment.executeOneshot(`sleep 0.1; echo ${index}`) : environment.execute(`sleep 0.1; echo ${index}`),
            ),
          );
          expect(results.map((result) => result.stdout.trim())).toEqual(Array.from({ length: count }, (_, index) => String(index)));
        },
        timeout,
      );
    });

    describe("capabilities", () => {
      it("declares the capabilities the backend promises", () => {
        expect(environment.capabilities).toMatchObject(options.capabilities ?? {});
        expect(typeof environment.capabilities.hostSockets).toBe("boolean");
        expect(typeof environment.capabilities.streamingStdio).toBe("boolean");
      });

      it(
        "lets a process inside connect to a host Unix socket when it declares hostSockets",
        async (context) => {
          if (!environment.capabilities.hostSockets) return context.skip("the environment does not declare hostSockets");
          const dir = await mkdtemp(path.join(tmpdir(), "codecall-conformance-"));
          const socketPath = path.join(dir, "host.sock");
          const received = new Promise<string>((resolve) => {
            const server = createServer((socket) => {
              let data = "";
              socket.on("data", (chunk) => (data += chunk.toString()));
              socket.on("end", () => {
                resolve(data);
                server.close();
              });
            });
            server.listen(socketPath);
          });
          try {
            // Python is what connects in real runs (the uds transport's guest); the suite uses it too.
            const result = await environment.execute(
              `python3 -c "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'hello from inside'); s.close()" ${q(socketPath)}`,
            );
            expect(result.stderr).toBe("");
            expect(await received).toBe("hello from inside");
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
        timeout,
      );
    });

    describe("executeOneshot", () => {
      it(
        "runs while a long execute() is still running",
        async () => {
          const gate = `${scratch}/gate-${Date.now()}`;
          // The long command only finishes once the oneshot has run: a backend that serialises
          // the two would deadlock here and fail by timeout.
          const long = environment.execute(`while [ ! -e ${q(gate)} ]; do sleep 0.05; done; echo released`);
          const quick = await environment.executeOneshot(`touch ${q(gate)} && echo quick`);
          expect(quick.stdout).toBe("quick\n");
          expect((await long).stdout).toBe("released\n");
        },
        timeout,
      );
    });

    describe("spawn", () => {
      it(
        "hands stdin to a spawned process and returns all its output",
        async () => {
          const child = await environment.spawn("cat; echo end");
          const writer = child.stdin.getWriter();
          await writer.write(new TextEncoder().encode("one\ntwo\n"));
          await writer.close();
          const [output, exit] = await Promise.all([new Response(child.stdout).text(), child.wait()]);
          expect(output).toBe("one\ntwo\nend\n");
          expect(exit.exitCode).toBe(0);
        },
        timeout,
      );

      it(
        "streams stdin and stdout while the process runs when it declares streamingStdio",
        async (context) => {
          if (!environment.capabilities.streamingStdio) return context.skip("the environment does not declare streamingStdio");
          const child = await environment.spawn("cat");
          const writer = child.stdin.getWriter();
          const reader = child.stdout.getReader();
          await writer.write(new TextEncoder().encode("ping\n"));
          let echoed = "";
          while (!echoed.includes("ping\n")) {
            const { value, done } = await reader.read();
            if (done) break;
            echoed += text.decode(value);
          }
          expect(echoed).toBe("ping\n");
          await writer.close();
          const exit = await child.wait();
          expect(exit.exitCode).toBe(0);
          reader.releaseLock();
        },
        timeout,
      );

      it(
        "kills the spawned tree",
        async () => {
          const pidFile = `${scratch}/spawn-child.pid`;
          const child = await environment.spawn(`sleep 300 & echo $! > ${q(pidFile)}; echo ready; wait`);
          const reader = child.stdout.getReader();
          let seen = "";
          while (!seen.includes("ready")) {
            const { value, done } = await reader.read();
            if (done) break;
            seen += text.decode(value);
          }
          reader.releaseLock();
          await child.kill();
          const exit = await child.wait();
          expect(exit.exitCode).not.toBe(0);
          const alive = await environment.executeOneshot(processGoneCommand(pidFile));
          expect(alive.stdout.trim()).toBe("gone");
        },
        timeout,
      );

      it(
        "reports the exit code of a spawned command",
        async () => {
          const child = await environment.spawn("exit 7");
          expect((await child.wait()).exitCode).toBe(7);
        },
        timeout,
      );
    });

    describe("openFileWriter (optional)", () => {
      it(
        "streams a file in chunks, binary-safe, with its mode, creating parent directories",
        async (context) => {
          if (environment.openFileWriter === undefined) return context.skip("the backend does not implement openFileWriter");
          const target = `${scratch}/streamed/deep/out.bin`;
          const allBytes = Uint8Array.from({ length: 256 }, (_, index) => index);
          const big = Uint8Array.from({ length: 1024 * 1024 }, (_, index) => (index * 31 + (index >> 10)) % 256);
          const writer = (await environment.openFileWriter(target, { mode: 0o600 })).getWriter();
          // Each write settles once the environment has the bytes: awaiting it is the flow control.
          for (const chunk of [allBytes, new Uint8Array(0), big, allBytes]) await writer.write(chunk);
          await writer.close();
          const expected = new Uint8Array([...allBytes, ...big, ...allBytes]);
          expect(Buffer.compare(await environment.readFile(target), expected)).toBe(0);
          expect((await environment.execute(`ls -l ${q(target)}`)).stdout.slice(0, 10)).toBe("-rw-------");
        },
        timeout,
      );

      it(
        "empties an existing file and keeps the writes in order",
        async (context) => {
          if (environment.openFileWriter === undefined) return context.skip("the backend does not implement openFileWriter");
          const target = `${scratch}/streamed-over.txt`;
          await environment.writeFile(target, "first, and much longer than what follows");
          const writer = (await environment.openFileWriter(target)).getWriter();
          // Not awaited one by one: the stream queues them, in order.
          const writes = ["one ", "two ", "three"].map((part) => writer.write(new TextEncoder().encode(part)));
          await Promise.all([...writes, writer.close()]);
          expect(text.decode(await environment.readFile(target))).toBe("one two three");
        },
        timeout,
      );

      it(
        "rejects a file that cannot be created",
        async (context) => {
          if (environment.openFileWriter === undefined) return context.skip("the backend does not implement openFileWriter");
          await environment.writeFile(`${scratch}/plain-file`, "x");
          await expect(environment.openFileWriter(`${scratch}/plain-file/child.txt`)).rejects.toThrow();
        },
        timeout,
      );
    });

    describe("files", () => {
      it(
        "round-trips text and binary, creating parent directories",
        async () => {
          const bytes = Uint8Array.from({ length: 4096 }, (_, index) => (index * 7) % 256);
          await environment.writeFile(`${scratch}/deep/er/data.bin`, bytes);
          expect(Array.from(await environment.readFile(`${scratch}/deep/er/data.bin`))).toEqual(Array.from(bytes));
          await environment.writeFile(`${scratch}/note.txt`, "héllo ✓\n");
          expect(text.decode(await environment.readFile(`${scratch}/note.txt`))).toBe("héllo ✓\n");
        },
        timeout,
      );

      it(
        "applies the file mode",
        async () => {
          await environment.writeFile(`${scratch}/secret.txt`, "x", { mode: 0o600 });
          const result = await environment.execute(`ls -l ${q(`${scratch}/secret.txt`)}`);
          expect(result.stdout.slice(0, 10)).toBe("-rw-------");
        },
        timeout,
      );

      it(
        "overwrites an existing file",
        async () => {
          await environment.writeFile(`${scratch}/over.txt`, "first, and longer");
          await environment.writeFile(`${scratch}/over.txt`, "second");
          expect(text.decode(await environment.readFile(`${scratch}/over.txt`))).toBe("second");
        },
        timeout,
      );

      it(
        "reports a missing file as FILE_NOT_FOUND",
        async () => {
          const error = await environment.readFile(`${scratch}/nope.txt`).catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(error, "FILE_NOT_FOUND")).toBe(true);
        },
        timeout,
      );

      it(
        "reads a file of exactly maxBytes whole, binary-safe",
        async () => {
          const bytes = Uint8Array.from({ length: 1000 }, (_, index) => (index * 7 + 3) % 256);
          await environment.writeFile(`${scratch}/bounded.bin`, bytes);
          expect(Array.from(await environment.readFile(`${scratch}/bounded.bin`, { maxBytes: 1000 }))).toEqual(Array.from(bytes));
          expect(Array.from(await environment.readFile(`${scratch}/bounded.bin`, { maxBytes: 5000 }))).toEqual(Array.from(bytes));
          await environment.writeFile(`${scratch}/empty.bin`, "");
          expect((await environment.readFile(`${scratch}/empty.bin`, { maxBytes: 0 })).length).toBe(0);
        },
        timeout,
      );

      it(
        "refuses a file over maxBytes with FILE_TOO_LARGE",
        async () => {
          await environment.writeFile(`${scratch}/over.bin`, new Uint8Array(1001));
          const error = await environment.readFile(`${scratch}/over.bin`, { maxBytes: 1000 }).catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(error, "FILE_TOO_LARGE")).toBe(true);
          expect((error as CodecallError).details).toMatchObject({ limit: 1000 });
          // A big (sparse) file made inside the environment: refused, not carried to the host.
          await environment.execute(`dd if=/dev/null of=${q(`${scratch}/huge.bin`)} bs=1 count=0 seek=268435456 2>/dev/null`);
          const huge = await environment.readFile(`${scratch}/huge.bin`, { maxBytes: 4096 }).catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(huge, "FILE_TOO_LARGE")).toBe(true);
        },
        timeout,
      );

      it(
        "applies maxBytes with the read itself, not with a size it was told",
        async () => {
          // A device claims 0 bytes and never ends: only a read that stops at the bound returns.
          const error = await environment.readFile("/dev/zero", { maxBytes: 4096 }).catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(error, "FILE_TOO_LARGE")).toBe(true);
        },
        timeout,
      );

      it(
        "readFile and writeFile of a FIFO fail with INVALID_PATH and never hang; the environment works afterwards",
        async () => {
          // A script can mkfifo where a tool will read or write; opening it would wait for a peer
          // for ever. A regression fails on the test timeout instead of settling.
          const fifo = `${scratch}/fifo`;
          await environment.execute(`mkfifo ${q(fifo)}`);
          const read = await environment.readFile(fifo).catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(read, "INVALID_PATH")).toBe(true);
          const written = await environment.writeFile(fifo, "x").catch((caught: unknown) => caught);
          expect(CodecallError.isInstance(written, "INVALID_PATH")).toBe(true);
          await environment.writeFile(`${scratch}/after-fifo.txt`, "still fine");
          expect(new TextDecoder().decode(await environment.readFile(`${scratch}/after-fifo.txt`))).toBe("still fine");
          expect((await environment.execute("echo alive")).stdout).toBe("alive\n");
        },
        timeout,
      );

      it(
        "makes a new private temp dir each time",
        async () => {
          const [first, second] = await Promise.all([environment.tempDir(), environment.tempDir()]);
          expect(first).not.toBe(second);
          const result = await environment.execute(`ls -ld ${q(first)} | cut -c1-10; touch ${q(`${first}/w`)} && echo writable`);
          expect(result.stdout).toBe("drwx------\nwritable\n");
          await environment.executeOneshot(`rm -rf ${q(first)} ${q(second)}`);
        },
        timeout,
      );
    });

    describe("remove", () => {
      it(
        "removes a directory tree and a single file, and succeeds when nothing is there",
        async () => {
          await environment.writeFile(`${scratch}/tree/a/b.txt`, "x");
          await environment.writeFile(`${scratch}/single.txt`, "x");
          await environment.remove(`${scratch}/tree`);
          await environment.remove(`${scratch}/single.txt`);
          await environment.remove(`${scratch}/never-existed`);
          const listing = await environment.execute(`ls -A ${q(scratch)}`);
          expect(listing.stdout.split("\n")).not.toContain("tree");
          expect(listing.stdout.split("\n")).not.toContain("single.txt");
        },
        timeout,
      );
    });

    describe("close", () => {
      it(
        "is idempotent and refuses work afterwards",
        async () => {
          const own = await options.create();
          await own.execute("true");
          await own.close();
          await own.close();
          await expect(own.execute("true")).rejects.toSatisfy((error: unknown) => CodecallError.isInstance(error));
        },
        timeout,
      );
    });
  });
}
