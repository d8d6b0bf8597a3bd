/**
 * The events of one run, in the order they happen: `started`, then the script's output chunks,
 * its tool calls and their approvals as they come, and `finished` with the result, always last.
 * Consumed through `executeCode({ onEvent })` (every event, synchronously) or as the async
 * iterable `startExecution()` returns (buffered; output may be dropped for a slow consumer, see
 * {@link OutputDroppedEvent}).
 */
import type { ApprovalDecisionType } from "./approval.js";
import type { ExecuteCodeResult } from "./execute/result.js";
import type { RpcId } from "./protocol/messages.js";

/** The script is about to start: the environment is ready and the transport open. */
export interface RunStartedEvent {
  readonly type: "started";
  readonly runId: string;
  /** The environment's `backendId` ("local", "docker", ...). */
  readonly backend: string;
  /** The transport that serves the run's tool calls ("uds", "stream", "file", ...). */
  readonly transport: string;
}

/**
 * A chunk of the script's stdout or stderr, as it arrives (uncapped, unlike the result). Secrets
 * are masked as in the result, also across chunks: text that may be the start of a secret is held
 * back until it is known not to be, so it may arrive a little later than the text before it. With
 * `redactSecrets: false` the chunks are the script's bytes as they are.
 */
export interface RunOutputEvent {
  readonly type: "stdout" | "stderr";
  readonly runId: string;
  readonly chunk: Uint8Array;
}

/**
 * Output that a slow consumer of the async iterable did not get: the buffer of undelivered output
 * was full, so `bytes` bytes of `stream` were dropped here. Never sent to `onEvent` (callbacks
 * get every chunk); tool and approval events are never dropped.
 */
export interface OutputDroppedEvent {
  readonly type: "output-dropped";
  readonly runId: string;
  readonly stream: "stdout" | "stderr";
  readonly bytes: number;
}

/** What identifies a tool call in the events. */
interface ToolCallIdentity {
  readonly runId: string;
  /** Unique within the run ("1", "2", ...): the id `onApproval` and the spans carry too. */
  readonly callId: string;
  /** The guest's JSON-RPC request id (unique per connection only; a script may open several). */
  readonly requestId: RpcId;
  /** The tool's name. */
  readonly tool: string;
}

/**
 * A tool call was dispatched: it passed the allow-list, argument validation and the budget, and
 * counts as made. Refused calls (unknown tool, invalid arguments, budget spent) have no events.
 */
export interface ToolCallStartEvent extends ToolCallIdentity {
  readonly type: "tool-call-start";
  /** The call's arguments as the tool gets them (the script's values: mask them before display). */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** How a dispatched call ended. */
export type ToolCallOutcome = "ok" | "failed" | "denied" | "cancelled";

/** A dispatched tool call ended: its answer is on its way to the script. */
export interface ToolCallEndEvent extends ToolCallIdentity {
  readonly type: "tool-call-end";
  /** From dispatch to answer, approval wait included. */
  readonly durationMs: number;
  /** `outcome === "ok"`. */
  readonly ok: boolean;
  /** `failed`: the tool threw or returned what cannot be sent; `denied`: not approved; `cancelled`: the run ended first. */
  readonly outcome: ToolCallOutcome;
  /** The error message the script gets, when not ok. */
  readonly error?: string;
  /** Time spent waiting for approval, when the call asked for one. */
  readonly approvalWaitMs?: number;
}

/** A call needs approval and is waiting for a decision (the script's time limit is paused while any call waits). */
export interface ApprovalRequestedEvent extends ToolCallIdentity {
  readonly type: "approval-requested";
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Who or what decided an approval. */
export type ApprovalDecidedBy =
  /** The `onApproval` handler answered. */
  | "handler"
  /** The tool was approved for the rest of the run while this call waited. */
  | "run-approval"
  /** No answer within `approvalTimeoutMs`: denied. */
  | "timeout"
  /** The run has no `onApproval`: denied (fail closed). */
  | "no-handler"
  /** The handler threw, rejected or answered something that is not a decision: denied. */
  | "handler-error"
  /** The run ended (interrupted, timed out) while the call waited. */
  | "cancelled";

/** The decision on an approval request. Every `approval-requested` is followed by one. */
export interface ApprovalDecidedEvent extends ToolCallIdentity {
  readonly type: "approval-decided";
  readonly decision: ApprovalDecisionType;
  readonly approved: boolean;
  readonly decidedBy: ApprovalDecidedBy;
  /** The denial message the script gets (after "Tool call denied: "), when denied. */
  readonly reason?: string;
  /** How long the call waited for the decision. */
  readonly waitMs: number;
}

/** The run is over; `result` is what `executeCode` returns. Always the last event. */
export interface RunFinishedEvent {
  readonly type: "finished";
  readonly runId: string;
  readonly result: ExecuteCodeResult;
}

/** Events about one tool call, as the dispatcher reports them. */
export type ToolRunEvent = ToolCallStartEvent | ToolCallEndEvent | ApprovalRequestedEvent | ApprovalDecidedEvent;

/** Every event of a run. Switch on `type`. */
export type RunEvent = RunStartedEvent | RunOutputEvent | OutputDroppedEvent | ToolRunEvent | RunFinishedEvent;
