// callSafely shields a run from its embedder's callbacks and hands back what an async one
// returned as a hold that never rejects; joinHolds and callEachHolding combine such holds.
import { describe, expect, it } from "vitest";
import { callEachHolding, callHolding, holdOf, joinHolds } from "../src/safe-callback.js";

/** Whether `promise` has settled after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("callHolding", () => {
  it("swallows a throw and returns no hold for a plain value", () => {
    expect(
      callHolding(() => {
        throw new Error("boom");
      }, 1),
    ).toBeUndefined();
    expect(callHolding((value: number) => value + 1, 1)).toBeUndefined();
    expect(callHolding(undefined, 1)).toBeUndefined();
  });

  it("returns a hold that settles with the callback's promise, and resolves when it rejects", async () => {
    let release = () => {};
    const hold = callHolding(() => new Promise<void>((resolve) => (release = resolve)), 1)!;
    expect(await settled(hold)).toBe(false);
    release();
    expect(await settled(hold)).toBe(true);
    await expect(callHolding(() => Promise.reject(new Error("no")), 1)).resolves.toBeUndefined();
  });

  it("takes any thenable, and one whose then throws settles", async () => {
    await expect(holdOf({ then: (resolve: () => void) => resolve() })).resolves.toBeUndefined();
    await expect(
      holdOf({
        then: () => {
          throw new Error("bad thenable");
        },
      }),
    ).resolves.toBeUndefined();
    expect(holdOf({ then: 1 })).toBeUndefined();
  });
});

describe("joinHolds and callEachHolding", () => {
  it("settle once every hold has, and give no hold when nobody held", async () => {
    expect(joinHolds(undefined, undefined)).toBeUndefined();
    let releaseFirst = () => {};
    let releaseSecond = () => {};
    const joined = callEachHolding(
      [() => new Promise<void>((resolve) => (releaseFirst = resolve)), () => 1, () => new Promise<void>((resolve) => (releaseSecond = resolve))],
      "event",
    )!;
    releaseFirst();
    expect(await settled(joined)).toBe(false);
    releaseSecond();
    expect(await settled(joined)).toBe(true);
    expect(callEachHolding([() => 1, undefined], "event")).toBeUndefined();
  });
});
