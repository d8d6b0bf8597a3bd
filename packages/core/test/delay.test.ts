import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { delay } from "../src/timers/delay.js";

describe("delay", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves once its time has passed, not before", async () => {
    const done = vi.fn();
    void delay(1_000).then(done);
    await vi.advanceTimersByTimeAsync(999);
    expect(done).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it("rejects with the signal's reason the moment it aborts, and leaves no timer behind", async () => {
    const controller = new AbortController();
    const waiting = delay(60_000, { signal: controller.signal });
    controller.abort(new Error("stop waiting"));
    await expect(waiting).rejects.toThrow("stop waiting");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects at once when the signal has already aborted, without arming a timer", async () => {
    const reason = new Error("too late");
    await expect(delay(1_000, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops listening to the signal once it has resolved", async () => {
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    const waiting = delay(10, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10);
    await waiting;
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
    controller.abort();
  });

  it("refuses a negative or NaN delay instead of resolving at once", async () => {
    await expect(delay(-1)).rejects.toThrow(RangeError);
    await expect(delay(Number.NaN)).rejects.toThrow(RangeError);
  });
});

describe("delay's hold on the process", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("keeps the process alive by default, and not with unref", async () => {
    const armed = vi.spyOn(globalThis, "setTimeout");
    const held = delay(5);
    const released = delay(5, { unref: true });
    const [heldTimer, releasedTimer] = armed.mock.results.map((result) => result.value as { hasRef(): boolean });
    expect(heldTimer?.hasRef()).toBe(true);
    expect(releasedTimer?.hasRef()).toBe(false);
    await Promise.all([held, released]);
  });
});
