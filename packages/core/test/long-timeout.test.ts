import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_DELAY_MS, setLongTimeout } from "../src/timers/long-timeout.js";

describe("setLongTimeout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits the whole of a delay longer than setTimeout can hold (25 days)", () => {
    const fired = vi.fn();
    setLongTimeout(fired, 2_200_000_000);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_200_000_000 - MAX_TIMER_DELAY_MS - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("fires a short delay once, on time", () => {
    const fired = vi.fn();
    setLongTimeout(fired, 1_000);
    vi.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(10_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("never fires once cleared, in any leg of a long delay", () => {
    const early = vi.fn();
    setLongTimeout(early, 5_000_000_000).clear();
    const late = vi.fn();
    const timer = setLongTimeout(late, 5_000_000_000);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS + 10);
    timer.clear();
    vi.advanceTimersByTime(5_000_000_000);
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it.each([-1, Number.NaN])("refuses the delay %s instead of firing at once", (ms) => {
    expect(() => setLongTimeout(() => {}, ms)).toThrow(RangeError);
  });
});
