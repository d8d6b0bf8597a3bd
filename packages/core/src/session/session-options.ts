/** What `createCodeSession()` takes and what a session's cells return. */
import type { ExecuteCodeOptions } from "../execute/execute-options.js";
import type { ExecuteCodeResult } from "../execute/result.js";

/**
 * The options of `executeCode` that hold for every cell of a session: where the kernel runs, how
 * it reaches the host, the tools, the limits (each cell gets the whole of `limits`: its own time,
 * output and tool-call budget), the env policy, cwd, approvals and listeners. Listeners see each
 * cell as one run (`started` … `finished`, with the cell's own run id). Starting a kernel is not
 * its first cell's time: the cell's limit runs once the kernel is up (which may take up to
 * 60 s, or the cell's own limit if longer).
 */
export type CodeSessionOptions = Omit<ExecuteCodeOptions, "code" | "signal" | "scriptName" | "telemetry">;

/** Options of one cell. */
export interface CodeSessionRunOptions {
  /**
   * Aborting interrupts the cell (KeyboardInterrupt in the kernel) and cancels its tool calls;
   * the cell's status is then `interrupted`.
   */
  signal?: AbortSignal;
}

/**
 * What became of the session's state (its globals: variables, imports, functions, open files,
 * threads) with this cell:
 * - `fresh`: there was none before (the session's first cell, or the first after `reset()` or
 *   after a loss an earlier result reported);
 * - `kept`: everything earlier cells left is still there, and the cell's own effects too;
 * - `lost`: the earlier state is gone — the kernel had ended since the last cell (killed from
 *   outside, out of memory), or this cell did not stop when interrupted (timeout, abort) and the
 *   kernel was killed. `stateNote` says which. The next cell starts `fresh`.
 */
export type CodeSessionState = "fresh" | "kept" | "lost";

/** A cell's result: `executeCode`'s, plus where it stands in the session. */
export interface CodeSessionResult extends ExecuteCodeResult {
  /** The cell's number in the session, from 1, counting across resets. */
  cell: number;
  state: CodeSessionState;
  /** With `state: "lost"`: why, in one sentence (the output ends with it too). */
  stateNote?: string;
}

/** A Python kernel kept alive between calls; see `createCodeSession()`. */
export interface CodeSession extends AsyncDisposable {
  /** The session's id (each cell's run id starts with it). */
  readonly id: string;
  /** True once `close()` was called. */
  readonly closed: boolean;
  /**
   * Runs a cell in the session's globals and resolves to its result, never rejecting for what
   * the cell or the environment did (that is a result, as in `executeCode`). Cells run one at a
   * time, in the order given. Rejects with `SESSION_CLOSED` after `close()`.
   */
  run(code: string, options?: CodeSessionRunOptions): Promise<CodeSessionResult>;
  /**
   * Ends the kernel and its state; the next cell starts `fresh` in a new one. A cell running
   * meanwhile ends with its state `lost`.
   */
  reset(): Promise<void>;
  /** Ends the kernel, its processes and its run dir. Idempotent; the environment stays open. */
  close(): Promise<void>;
}
