/**
 * Approvals asked of the MCP client: a call the script makes to a tool that needs approval becomes
 * an `elicitation/create` request (form mode) on the connection that runs the script. The user
 * sees the tool and its arguments (secrets masked, bounded) and picks approve, approve for the rest
 * of the run, or deny (with a reason the script reads). Declining or dismissing the form denies;
 * so does a client that fails to answer. The request is withdrawn (`notifications/cancelled`) when
 * the answer is no longer wanted: the run ended or was cancelled, the approval timed out, or the
 * tool was approved for the run meanwhile.
 */
import { describeValue, redactSecrets, type ApprovalDecision, type ApprovalHandler, type ApprovalRequest } from "@codecall/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitRequestFormParams, ElicitResult, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The choices offered, as the form's `decision` values (core's decision words). */
const DECISIONS = ["approve", "approve-for-run", "deny"] as const;

/** Longest arguments text shown in a question (the rest is cut, marked `…`). */
const MAX_ARGUMENTS_CHARS = 500;
/**
 * The arguments are described up to this length, masked, and only then cut to
 * {@link MAX_ARGUMENTS_CHARS}: a secret that straddles the cut is masked whole, not half shown.
 */
const DESCRIBED_CHARS = 8 * MAX_ARGUMENTS_CHARS;
/** Longest reason taken from the form (core clips again). */
const MAX_REASON_CHARS = 1_000;
/**
 * The SDK gives up on a request after 60 s by default: too soon for a person. Core bounds the wait
 * (`approvalTimeoutMs`, then it withdraws the request), so the SDK's own timer is set to its maximum.
 */
const SDK_TIMEOUT_MS = 2_147_483_647;

/** The reason the script gets when the user picks deny without saying why. */
export const USER_DENIAL = "the user denied this call";

/** True when the connected client declared form elicitation (MCP 2025-06-18 and later; `elicitation: {}` counts). */
export function clientCanElicit(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation?.form !== undefined;
}

export interface ElicitApprovalOptions {
  /** Values masked in the arguments shown (well-known token formats are masked anyway). */
  knownSecrets?: readonly string[];
}

/**
 * An approver that asks the client of `server`, with each question sent as part of the request
 * `relatedRequestId` (the `tools/call` that runs the script: over Streamable HTTP it then travels
 * on that request's stream). A failed request (the connection closed, the client answered with an
 * error or a form that does not match) rejects, which core counts as a denial.
 */
export function elicitingApprover(server: Server, relatedRequestId: RequestId, options: ElicitApprovalOptions = {}): ApprovalHandler {
  return async (request) => {
    const answer = await server.elicitInput(approvalForm(request, options), { relatedRequestId, signal: request.signal, timeout: SDK_TIMEOUT_MS });
    return decisionOf(answer);
  };
}

/** The question for one call. */
export function approvalForm(request: ApprovalRequest, options: ElicitApprovalOptions = {}): ElicitRequestFormParams {
  const call = `${request.tool}(${describeArguments(request.args, options.knownSecrets ?? [])})`;
  return {
    mode: "form",
    message: [
      "A script run by execute_code wants to make a tool call that needs your approval:",
      "",
      `  ${call}`,
      "",
      "approve: run this call.",
      `approve-for-run: run it, and every later ${request.tool} call of this script without asking again.`,
      "deny: do not run it; the script gets an error with your reason.",
    ].join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", title: "Decision", description: `Whether ${request.tool} may run`, enum: [...DECISIONS] },
        reason: {
          type: "string",
          title: "Reason (if you deny)",
          description: "Why not: the script and the model read it",
          maxLength: MAX_REASON_CHARS,
        },
      },
      required: ["decision"],
    },
  };
}

/** What the client's answer decides. Anything but an explicit approval denies. */
export function decisionOf(answer: ElicitResult): ApprovalDecision {
  if (answer.action === "decline") return { type: "deny", reason: "the user declined this call" };
  if (answer.action !== "accept") return { type: "deny", reason: "the user dismissed the approval request" };
  const decision = answer.content?.decision;
  if (decision === "approve" || decision === "approve-for-run") return decision;
  if (decision !== "deny") return { type: "deny", reason: "the client's answer named no decision" };
  const reason = answer.content?.reason;
  return { type: "deny", reason: typeof reason === "string" && reason.trim() !== "" ? reason.trim().slice(0, MAX_REASON_CHARS) : USER_DENIAL };
}

/** The arguments as a bounded, masked JSON-like text. */
function describeArguments(args: Readonly<Record<string, unknown>>, knownSecrets: readonly string[]): string {
  const masked = redactSecrets(describeValue(args, { maxLength: DESCRIBED_CHARS }), { knownSecrets });
  return masked.length <= MAX_ARGUMENTS_CHARS ? masked : `${masked.slice(0, MAX_ARGUMENTS_CHARS)}…`;
}
