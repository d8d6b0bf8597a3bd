/**
 * `executeCode` on in-memory pairs, for a test file: every pair made is checked after each test to
 * have been left clean (no file, run dir, listener, open session or running process).
 */
import { afterEach, expect } from "vitest";
import { executeCode } from "../../src/execute/execute-code.js";
import type { ExecuteCodeOptions } from "../../src/execute/execute-options.js";
import type { ExecuteCodeResult } from "../../src/execute/result.js";
import type { MemoryEnvironmentOptions } from "./memory-environment.js";
import type { Guest } from "./memory-guest.js";
import { createMemoryPair, type MemoryPair } from "./memory-pair.js";

export interface MemoryRuns {
  /** A new pair, checked for leftovers after the test. */
  pair: (guest: Guest, options?: MemoryEnvironmentOptions) => MemoryPair;
  /**
   * `executeCode` on `pair` (its default transport, a one-line script, no host env so no host
   * value is masked), with `options` on top.
   */
  execute: (pair: MemoryPair, options?: Partial<ExecuteCodeOptions>) => Promise<ExecuteCodeResult>;
  /** `execute` on a new pair running `guest`. */
  run: (guest: Guest, options?: Partial<ExecuteCodeOptions>) => Promise<ExecuteCodeResult>;
}

/** Call once at the top of a test file. */
export function useMemoryRuns(): MemoryRuns {
  let pairs: MemoryPair[] = [];
  afterEach(() => {
    // Every run, whatever its outcome, leaves nothing behind.
    for (const pair of pairs) expect(pair.leftovers()).toEqual([]);
    pairs = [];
  });
  const runs: MemoryRuns = {
    pair: (guest, options) => {
      const pair = createMemoryPair(guest, options);
      pairs.push(pair);
      return pair;
    },
    execute: (pair, options = {}) =>
      executeCode({ code: "print('hi')", environment: pair.environment, transport: pair.transport, env: { host: {} }, ...options }),
    run: (guest, options) => runs.execute(runs.pair(guest), options),
  };
  return runs;
}
