import { describe, expect, it } from "vitest";
import type { ProcessExit } from "../src/environment.js";
import { LiveProcesses, type WatchedProcess } from "../src/process/live-processes.js";

/** A process that records how it was ended and ends when told to. */
function fakeProcess() {
  let end!: (exit: ProcessExit) => void;
  const exit = new Promise<ProcessExit>((resolve) => (end = resolve));
  const calls: string[] = [];
  const process: WatchedProcess & { calls: string[]; end: (exit: ProcessExit) => void } = {
    calls,
    end,
    expire: async (graceMs) => void calls.push(`expire ${graceMs}`),
    kill: async () => void calls.push("kill"),
    wait: () => exit,
  };
  return process;
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe("LiveProcesses", () => {
  it("expires a process whose timeout runs out, with 2 s of grace", async () => {
    const live = new LiveProcesses<ReturnType<typeof fakeProcess>>();
    const process = live.add(fakeProcess(), { timeoutMs: 20 });
    await tick(60);
    expect(process.calls).toEqual(["expire 2000"]);
  });

  it("kills on abort, at once when the signal has already fired", async () => {
    const live = new LiveProcesses<ReturnType<typeof fakeProcess>>();
    const controller = new AbortController();
    const process = live.add(fakeProcess(), { signal: controller.signal });
    controller.abort();
    expect(process.calls).toEqual(["kill"]);
    const late = live.add(fakeProcess(), { signal: controller.signal });
    expect(late.calls).toEqual(["kill"]);
  });

  it("disarms and forgets a process once it ended; killAll reaches only those still running", async () => {
    const live = new LiveProcesses<ReturnType<typeof fakeProcess>>();
    const controller = new AbortController();
    const ended = live.add(fakeProcess(), { timeoutMs: 20, signal: controller.signal });
    const running = live.add(fakeProcess());
    ended.end({ exitCode: 0 });
    await tick(60);
    controller.abort();
    await live.killAll();
    expect(ended.calls).toEqual([]);
    expect(running.calls).toEqual(["kill"]);
  });

  it("kills the rest when one kill fails", async () => {
    const live = new LiveProcesses<WatchedProcess>();
    const failing = { ...fakeProcess(), kill: () => Promise.reject(new Error("gone")) };
    const other = fakeProcess();
    live.add(failing);
    live.add(other);
    await expect(live.killAll()).resolves.toBeUndefined();
    expect(other.calls).toEqual(["kill"]);
  });
});
