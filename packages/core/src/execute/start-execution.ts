/**
 * `startExecution()`: `executeCode` as a run you can watch. It starts the run at once and gives
 * back its events as an async iterable (one consumer) beside the result. The run never waits for
 * the consumer: what it has not taken yet is buffered, output within a bound (beyond it output is
 * dropped and an `output-dropped` event says how much), everything else whole.
 */
import type { RunEvent } from "../events.js";
import { EventChannel } from "./event-channel.js";
import { runExecution } from "./execute-code.js";
import type { ExecuteCodeOptions } from "./execute-options.js";
import { prepareRun } from "./prepare-run.js";
import type { ExecuteCodeResult } from "./result.js";

/** A started run: iterate it for its events, await `result` for its end. */
export interface Execution extends AsyncIterable<RunEvent> {
  /** The run's id, as its events, approval requests and spans carry it. */
  readonly runId: string;
  /** What `executeCode` would have resolved to; it resolves whether or not the events are read. */
  readonly result: Promise<ExecuteCodeResult>;
}

/**
 * Starts a run. Throws at once for invalid options (as `executeCode` rejects). The events end
 * with `finished`; a consumer that stops iterating early (`break`) releases the buffer but does not
 * stop the run — pass a `signal` for that.
 */
export function startExecution(options: ExecuteCodeOptions): Execution {
  const run = prepareRun(options);
  const channel = new EventChannel();
  const result = runExecution(run, options, channel);
  // The caller may only iterate; a failure still reaches it through the iterable's end and `result`.
  result.catch(() => {});
  return {
    runId: run.runId,
    result,
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  };
}
