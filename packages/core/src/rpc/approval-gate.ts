/**
 * The approval step of a dispatched tool call. A call whose tool needs approval waits here, in the
 * host, while the run's `onApproval` decides; the script's other calls go on, and its time limit
 * is paused while any call waits. The gate remembers the tools approved for the rest of the run
 * (and settles the calls of such a tool that were still waiting), bounds every wait, and fails
 * closed: no handler, a handler that throws or answers nonsense, or no answer in time all deny.
 */
import { DEFAULT_APPROVAL_TIMEOUT_MS, type ApprovalDecisionType, type ApprovalHandler, type NeedsApproval } from "../approval.js";
import { debugLogger } from "../debug/debug-log.js";
import { errorMessage } from "../errors.js";
import type { ApprovalDecidedBy, ApprovalDecidedEvent, ApprovalRequestedEvent } from "../events.js";
import type { RpcId } from "../protocol/messages.js";
import { setLongTimeout } from "../timers/long-timeout.js";
import { raceAbort } from "../timers/race-abort.js";
import type { ToolDefinition } from "../tool.js";

export interface ApprovalGateOptions {
  runId: string;
  /** Decides; without it every call that needs approval is denied. */
  onApproval?: ApprovalHandler | undefined;
  /** Longest wait for one decision (default 5 minutes); then the call is denied. */
  timeoutMs?: number | undefined;
  /** Pauses the script's time limit; returns the release. Called when a wait begins. */
  holdTimeLimit?: (() => () => void) | undefined;
  /** Reports each request and its decision. */
  emit: (event: ApprovalRequestedEvent | ApprovalDecidedEvent) => void;
}

/** The call being checked. */
export interface GatedCall {
  tool: ToolDefinition;
  args: Record<string, unknown>;
  callId: string;
  requestId: RpcId;
  /** The call's own signal: aborted when the run ends. */
  signal: AbortSignal;
}

/** What the gate decided for a call that needed approval. */
export type ApprovalVerdict = { approved: true; waitMs: number } | { approved: false; reason: string; waitMs: number };

/** Longest denial reason passed on to the script (the model reads it; a handler's text may be long). */
const MAX_REASON_CHARS = 1_000;

const log = debugLogger("rpc");

export class ApprovalGate {
  readonly #options: ApprovalGateOptions;
  readonly #timeoutMs: number;
  readonly #approvedForRun = new Set<string>();
  /** The open requests per tool, so an approval for the run can settle them. */
  readonly #waiting = new Map<string, Set<(by: "run-approval") => void>>();

  constructor(options: ApprovalGateOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  /** True when some call of `tool` could wait for a decision in this run (it may need approval, and someone could give it). */
  static mayWait(tool: ToolDefinition, onApproval: ApprovalHandler | undefined): boolean {
    return onApproval !== undefined && tool.needsApproval !== undefined && tool.needsApproval !== false;
  }

  /**
   * `undefined` when the call needs no approval (or its tool is approved for the run); otherwise
   * the decision. Rejects with the call signal's reason when the run ends first (after reporting
   * the request as decided `cancelled`).
   */
  async check(call: GatedCall): Promise<ApprovalVerdict | undefined> {
    const name = call.tool.name;
    if (this.#approvedForRun.has(name)) return undefined;
    if (!(await this.#needsApproval(call))) return undefined;
    // Approved for the run while the tool's own rule was deciding.
    if (this.#approvedForRun.has(name)) return undefined;
    return this.#ask(call);
  }

  async #needsApproval(call: GatedCall): Promise<boolean> {
    const rule = call.tool.needsApproval as NeedsApproval | undefined;
    if (typeof rule !== "function") return rule === true;
    try {
      const context = { runId: this.#options.runId, callId: call.callId, signal: call.signal };
      // Only `false` waives approval: a rule that returns nothing asks (fail closed).
      return (
        (await raceAbort(
          Promise.resolve().then(() => rule(call.args, context)),
          call.signal,
        )) !== false
      );
    } catch (error) {
      if (call.signal.aborted) throw call.signal.reason;
      log(() => `call ${call.callId} ${call.tool.name}: its needsApproval rule failed (${errorMessage(error)}); approval is required`);
      return true;
    }
  }

  async #ask(call: GatedCall): Promise<ApprovalVerdict> {
    const identity = { runId: this.#options.runId, callId: call.callId, requestId: call.requestId, tool: call.tool.name };
    this.#options.emit({ type: "approval-requested", ...identity, arguments: call.args });
    const started = performance.now();
    const decide = (decision: ApprovalDecisionType, decidedBy: ApprovalDecidedBy, reason?: string): ApprovalVerdict => {
      const waitMs = performance.now() - started;
      const approved = decision !== "deny";
      this.#options.emit({ type: "approval-decided", ...identity, decision, approved, decidedBy, ...(approved ? {} : { reason }), waitMs });
      log(() => `call ${call.callId} ${call.tool.name}: ${approved ? "approved" : "denied"} (${decidedBy}) after ${Math.round(waitMs)} ms`);
      return approved ? { approved, waitMs } : { approved, reason: reason ?? "", waitMs };
    };

    const handler = this.#options.onApproval;
    if (handler === undefined) return decide("deny", "no-handler", `${call.tool.name} needs approval, and nobody can approve calls in this run`);
    if (call.signal.aborted) {
      decide("deny", "cancelled", "the run ended");
      throw call.signal.reason;
    }

    const release = this.#options.holdTimeLimit?.();
    const asked = new AbortController();
    let interruptedBy: "timeout" | "cancelled" | "run-approval" | undefined;
    let wake: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => (wake = resolve));
    const interrupt = (by: "timeout" | "cancelled" | "run-approval", why: string) => {
      if (interruptedBy !== undefined) return;
      interruptedBy = by;
      asked.abort(why);
      wake();
    };
    const onCancel = () => interrupt("cancelled", "the run ended");
    call.signal.addEventListener("abort", onCancel, { once: true });
    const timer = setLongTimeout(() => interrupt("timeout", `no answer within ${formatSeconds(this.#timeoutMs)}`), this.#timeoutMs, { unref: true });
    const waiting = this.#waitingFor(call.tool.name);
    const onRunApproval = () => interrupt("run-approval", `${call.tool.name} was approved for the rest of the run`);
    waiting.add(onRunApproval);
    try {
      const request = { tool: call.tool.name, args: call.args, runId: this.#options.runId, callId: call.callId, signal: asked.signal };
      const answered = Promise.resolve()
        .then(() => handler(request))
        .then(
          (answer) => ({ answer }),
          (error: unknown) => ({ error }),
        );
      const outcome = await Promise.race([answered, interrupted.then(() => undefined)]);
      if (interruptedBy === "cancelled") {
        decide("deny", "cancelled", "the run ended");
        throw call.signal.reason;
      }
      if (interruptedBy === "timeout") return decide("deny", "timeout", `no answer to the approval request within ${formatSeconds(this.#timeoutMs)}`);
      if (interruptedBy === "run-approval") return decide("approve", "run-approval");
      if (outcome === undefined || "error" in outcome) {
        log(() => `call ${call.callId} ${call.tool.name}: the approval handler failed: ${errorMessage(outcome?.error)}`);
        return decide("deny", "handler-error", "the approval could not be obtained");
      }
      const decision = readDecision(outcome.answer);
      if (decision === undefined) return decide("deny", "handler-error", "the approval handler gave no valid answer");
      if (decision.type === "approve-for-run") {
        waiting.delete(onRunApproval);
        this.#approveForRun(call.tool.name);
      }
      return decide(decision.type, "handler", decision.type === "deny" ? decision.reason : undefined);
    } finally {
      waiting.delete(onRunApproval);
      timer.clear();
      call.signal.removeEventListener("abort", onCancel);
      release?.();
    }
  }

  #waitingFor(tool: string): Set<(by: "run-approval") => void> {
    let waiting = this.#waiting.get(tool);
    if (waiting === undefined) this.#waiting.set(tool, (waiting = new Set()));
    return waiting;
  }

  #approveForRun(tool: string): void {
    this.#approvedForRun.add(tool);
    for (const settle of [...(this.#waiting.get(tool) ?? [])]) settle("run-approval");
  }
}

/** The decision an answer (an `ApprovalDecision`, or anything a handler returned) stands for; `undefined` for anything that is not one. */
function readDecision(answer: unknown): { type: ApprovalDecisionType; reason: string } | undefined {
  if (answer === true) return { type: "approve", reason: "" };
  if (answer === false) return { type: "deny", reason: DEFAULT_DENIAL };
  const type = typeof answer === "string" ? answer : typeof answer === "object" && answer !== null ? (answer as { type?: unknown }).type : undefined;
  if (type !== "approve" && type !== "approve-for-run" && type !== "deny") return undefined;
  const given = typeof answer === "object" ? (answer as { reason?: unknown }).reason : undefined;
  return { type, reason: typeof given === "string" && given.trim() !== "" ? clipReason(given.trim()) : DEFAULT_DENIAL };
}

const DEFAULT_DENIAL = "denied by the approver";

function clipReason(reason: string): string {
  return reason.length <= MAX_REASON_CHARS ? reason : `${reason.slice(0, MAX_REASON_CHARS)}…`;
}

function formatSeconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
