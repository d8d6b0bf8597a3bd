// A command the in-environment timeout ended is reported as timed out even when the host's own
// timer has not fired yet (a busy host, or a timer late by the moment the wrapper started after
// it): CI once saw `timedOut: false` with exit 124 on a loaded machine. Checked on RemoteProcess
// with a channel whose exit is told, so the order of the two timers is not left to chance.
import { describe, expect, it } from "vitest";
import type { ProcessExit } from "../src/environment.js";
import { RemoteProcess, type ExecChannel } from "../src/remote/remote-executor.js";
import { delay } from "../src/timers/delay.js";

function channelEndingWith(exit: ProcessExit, afterMs: number): ExecChannel {
  return {
    stdin: new WritableStream<Uint8Array>(),
    stdout: new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
    stderr: new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
    exit: delay(afterMs).then(() => exit),
    close: () => {},
  };
}

async function timedOutAfter(exit: ProcessExit, afterMs: number, timeoutMs: number | undefined): Promise<boolean> {
  const process = new RemoteProcess(channelEndingWith(exit, afterMs), "", () => Promise.resolve(), "test", timeoutMs);
  await process.wait();
  return process.timedOut;
}

describe("RemoteProcess and the in-environment timeout", () => {
  it("counts the timeout's exit status after the deadline as timed out", async () => {
    // timeoutMs 300 gives `timeout 1`: it fires 1 s after the start.
    expect(await timedOutAfter({ exitCode: 124 }, 1_050, 300)).toBe(true);
    expect(await timedOutAfter({ exitCode: 137 }, 1_050, 300)).toBe(true);
  });

  it("does not for the same status before the deadline, another status, or no timeout", async () => {
    expect(await timedOutAfter({ exitCode: 124 }, 10, 300)).toBe(false);
    expect(await timedOutAfter({ exitCode: 0 }, 1_050, 300)).toBe(false);
    expect(await timedOutAfter({ exitCode: 124 }, 1_050, undefined)).toBe(false);
  });
});
