/**
 * Approvals: a tool may declare that its calls need the host's approval (`needsApproval`); the run's
 * `onApproval` handler then decides each such call while the script waits for it. These are the
 * types an embedder and an adapter (AI SDK, MCP) map onto; the mechanics live in
 * `rpc/approval-gate.ts`.
 */

/** What a tool's `needsApproval` function gets besides the call's arguments. */
export interface NeedsApprovalContext {
  /** The run the call belongs to. */
  readonly runId: string;
  /** The call, unique within the run (the same id the events and `onApproval` carry). */
  readonly callId: string;
  /** Aborted when the run ends while the function is still deciding. */
  readonly signal: AbortSignal;
}

/**
 * Whether a call of a tool needs approval: always (`true`), never (`false`, the default), or as a
 * function of the call's (schema-validated) arguments decides. A function that throws or rejects
 * counts as `true`: an approval that cannot be ruled out is asked for.
 */
export type NeedsApproval<Args = Record<string, unknown>> = boolean | ((args: Args, context: NeedsApprovalContext) => boolean | Promise<boolean>);

/** One call waiting for a decision: what `onApproval` is asked about. */
export interface ApprovalRequest {
  /** The tool's name. */
  readonly tool: string;
  /** The call's arguments, validated against the tool's schema. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly runId: string;
  /** The call, unique within the run. */
  readonly callId: string;
  /**
   * Aborted when the answer is no longer wanted: the wait timed out (`approvalTimeoutMs`), the run
   * ended, or the tool was approved for the rest of the run while this request was open. A prompt
   * should be withdrawn then; whatever the handler answers afterwards is ignored.
   */
  readonly signal: AbortSignal;
}

/** The three answers, as words. */
export type ApprovalDecisionType = "approve" | "approve-for-run" | "deny";

/**
 * An answer to an {@link ApprovalRequest}. `approve` lets this call run; `approve-for-run` lets it
 * run and every later call of the same tool in this run without asking again; `deny` makes the
 * call raise `ToolError` in the script, with `reason` in its message (the script and the model
 * read it: say why, briefly). Shorthands: `true` is `approve`, `false` is `deny`, and the words
 * alone are the decisions without a reason.
 */
export type ApprovalDecision =
  boolean | ApprovalDecisionType | { readonly type: "approve" | "approve-for-run" } | { readonly type: "deny"; readonly reason?: string };

/**
 * Decides calls that need approval. It may take its time (a person answering): the call waits in
 * the host, the script's other calls go on, and the script's time limit is paused until it answers
 * or `approvalTimeoutMs` passes (then the call is denied: no answer). A throw or rejection denies.
 */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** Default of `approvalTimeoutMs`: how long one call waits for a decision (5 minutes). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;
