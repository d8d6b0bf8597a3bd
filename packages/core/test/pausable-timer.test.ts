/**
 * The script's time limit as a pausable timer: it never fires while held, resumes with the time
 * it had left, and holds nest (the limit runs again only when the last waiting call is decided).
 */
import { describe, expect, it } from "vitest";
import { PausableTimer } from "../src/timers/pausable-timer.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds; a generous bound, so a loaded machine does not fail the test. */
async function eventually(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("the timer did not fire within 10 s");
    await sleep(5);
  }
}

describe("PausableTimer", () => {
  it("fires after its time when never held", async () => {
    const timer = new PausableTimer();
    let fired = false;
    timer.start(20, () => (fired = true));
    await eventually(() => fired);
  });

  it("does not fire while held, however long, and fires after release", async () => {
    const timer = new PausableTimer();
    let fired = 0;
    timer.start(30, () => (fired += 1));
    const release = timer.hold();
    await sleep(200);
    expect(fired).toBe(0);
    expect(timer.pausedMs).toBeGreaterThanOrEqual(150);
    release();
    release(); // idempotent: a second release does not undo another hold
    await eventually(() => fired === 1);
    await sleep(50);
    expect(fired).toBe(1);
  });

  it("stays paused until every hold is released", async () => {
    const timer = new PausableTimer();
    let fired = false;
    timer.start(30, () => (fired = true));
    const first = timer.hold();
    const second = timer.hold();
    first();
    await sleep(150);
    expect(fired).toBe(false);
    second();
    await eventually(() => fired);
  });

  it("starts paused when held before it starts", async () => {
    const timer = new PausableTimer();
    const release = timer.hold();
    let fired = false;
    timer.start(10, () => (fired = true));
    await sleep(100);
    expect(fired).toBe(false);
    release();
    await eventually(() => fired);
  });

  it("never fires once cleared, also when released afterwards", async () => {
    const timer = new PausableTimer();
    let fired = false;
    timer.start(10, () => (fired = true));
    const release = timer.hold();
    timer.clear();
    release();
    await sleep(100);
    expect(fired).toBe(false);
  });
});
