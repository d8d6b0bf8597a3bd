// collectProcess when a command's input cannot be written, with real child processes: a process
// that exited without reading its input keeps its own result; one left waiting for input that
// never comes (an exec API that refused the write) is ended with a clear error instead of waiting
// for its timeout.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EnvironmentProcess, ProcessExit } from "../src/environment.js";
import { CodecallError } from "../src/errors.js";
import { collectProcess, UNDELIVERED_STDIN_GRACE_MS } from "../src/process/collect.js";

/** `sh -c script` as an EnvironmentProcess; `refuseInput` makes every stdin write fail, as an exec API refusing a message would. */
function start(script: string, refuseInput = false): EnvironmentProcess & { killed: () => boolean } {
  const child = spawn("sh", ["-c", script], { stdio: "pipe" });
  child.stdin.on("error", () => {});
  let killed = false;
  const exit = new Promise<ProcessExit>((resolve) =>
    child.once("close", (code, signal) => resolve({ exitCode: code ?? 137, ...(signal ? { signal } : {}) })),
  );
  const refusing = new WritableStream<Uint8Array>({
    write: () => Promise.reject(new Error("message larger than max (5242880 vs. 4194304)")),
  });
  return {
    stdin: refuseInput ? refusing : (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>),
    stdout: Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>,
    wait: () => exit,
    kill: async () => {
      killed = true;
      child.kill("SIGKILL");
      await exit;
    },
    killed: () => killed,
  };
}

describe("collectProcess with input that cannot be written", () => {
  it("keeps the result of a process that exited without reading its input (EPIPE)", async () => {
    const process = start("printf done; exit 4");
    const collected = await collectProcess(process, { stdin: new Uint8Array(4 * 1024 * 1024) });
    expect(collected.exit.exitCode).toBe(4);
    expect(collected.stdout.text).toBe("done");
    expect(process.killed()).toBe(false);
  });

  it("ends a process left waiting for the input that was refused, and says why", async () => {
    const process = start("cat; echo finished", true);
    const started = Date.now();
    const error = await collectProcess(process, { stdin: "never arrives" }).catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toBe(
      `Could not write the command's input (message larger than max (5242880 vs. 4194304)); the command was still waiting after ${UNDELIVERED_STDIN_GRACE_MS / 1000} s and was ended`,
    );
    expect(process.killed()).toBe(true);
    // Ended after the grace, not at some timeout: a generous bound.
    expect(Date.now() - started).toBeLessThan(UNDELIVERED_STDIN_GRACE_MS + 20_000);
  });

  it("keeps the result of a process that exits within the grace although its input was refused", async () => {
    const process = start("sleep 0.2; exit 5", true);
    const collected = await collectProcess(process, { stdin: "refused" });
    expect(collected.exit.exitCode).toBe(5);
    expect(process.killed()).toBe(false);
  });

  it("leaves a process that closed its own stdin running when told writes fail only that way (a local pipe)", async () => {
    const process = start("exec 0<&-; sleep 3; echo finished");
    const collected = await collectProcess(process, { stdin: new Uint8Array(4 * 1024 * 1024), undeliveredStdin: "ignore" });
    expect(collected.exit.exitCode).toBe(0);
    expect(collected.stdout.text).toBe("finished\n");
    expect(process.killed()).toBe(false);
  });
});
