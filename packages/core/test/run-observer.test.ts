// The run's events reach every listener; for output events, a listener's returned promise is the
// run's hold on the script's output (drainStream waits for it), for any other event it is ignored.
import { describe, expect, it } from "vitest";
import type { RunOutputEvent } from "../src/events.js";
import { RunObserver } from "../src/execute/run-observer.js";

const chunk = new TextEncoder().encode("hi\n");
const stdout: RunOutputEvent = { type: "stdout", runId: "r1", chunk };
const stderr: RunOutputEvent = { type: "stderr", runId: "r1", chunk };

describe("RunObserver holds", () => {
  it("returns a hold when onEvent, onStdout or onStderr returns a promise for an output event", async () => {
    let releaseEvent = () => {};
    let releaseOwn = () => {};
    const observer = new RunObserver({
      onEvent: (event) => (event.type === "stdout" ? new Promise<void>((resolve) => (releaseEvent = resolve)) : undefined),
      onStdout: () => new Promise<void>((resolve) => (releaseOwn = resolve)),
      onStderr: () => undefined,
    });
    const hold = observer.emitOutput(stdout);
    expect(hold).toBeInstanceOf(Promise);
    let done = false;
    void hold!.then(() => (done = true));
    releaseEvent();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    releaseOwn();
    await hold;
    expect(observer.emitOutput(stderr)).toBeUndefined();
  });

  it("holds nothing once the run is over", () => {
    const observer = new RunObserver({ onEvent: () => new Promise<void>(() => {}), onStdout: () => new Promise<void>(() => {}) });
    observer.abandon();
    expect(observer.emitOutput(stdout)).toBeUndefined();
  });
});
