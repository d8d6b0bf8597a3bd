/**
 * The sessions behind `createCodeTool({ session })`: one `CodeSession` per conversation key, kept
 * in a {@link SessionPool}. Each call runs its script as a cell of its conversation's session; a
 * call with `reset: true` starts that session afresh first. When the pool made a new session for
 * a conversation that had one (idle too long, evicted, another tool set), the result says the
 * earlier state is gone, as a session says so after losing its kernel.
 *
 * A session is made with the options of the tool that first needed it; each cell's approver,
 * listeners and tool implementations are those of the call running it (cells of one session run
 * one at a time), so tools sharing a pool, and calls of different MCP clients, each get their own.
 */
import type { ApprovalHandler, ApprovalRequest } from "../approval.js";
import type { Environment } from "../environment.js";
import type { RunEvent } from "../events.js";
import type { ExecuteCodeOptions } from "../execute/execute-options.js";
import type { ExecutionLimits } from "../execute/limits.js";
import { appendNotice } from "../execute/result.js";
import { callEachHolding } from "../safe-callback.js";
import { createCodeSession } from "../session/code-session.js";
import type { CodeSession, CodeSessionResult } from "../session/session-options.js";
import type { ToolDefinition } from "../tool.js";
import { describeIdleTime, SessionPool, type SessionEndReason, type SessionPoolOptions } from "./session-pool.js";
import { routedTool } from "./routed-tool.js";
import { sessionFingerprint } from "./tool-set-fingerprint.js";

/** A pool's session, with the approver and listeners of the call whose cell runs in it. */
export interface RoutedSession {
  readonly session: CodeSession;
  /** Set for the duration of one cell. */
  route: CellRoute | undefined;
  close(): Promise<void>;
}

interface CellRoute {
  onApproval?: ApprovalHandler | undefined;
  listeners: readonly ((event: RunEvent) => unknown)[];
  /** The calling tool's own tools, by name (see routed-tool.ts). */
  tools: ReadonlyMap<string, ToolDefinition>;
}

/**
 * Sessions kept per conversation, shareable by several tools: a platform that builds its tools per
 * request (say, a route handler calling `codeTool()` each time) passes one pool to all of them, so
 * a conversation finds its session again. `close()` ends every session.
 */
export type CodeSessionPool = SessionPool<RoutedSession>;

/** A pool for `createCodeTool({ session: { pool } })`: idle time and cap as {@link SessionPoolOptions}. */
export function createCodeSessionPool(options: SessionPoolOptions = {}): CodeSessionPool {
  return new SessionPool<RoutedSession>(options);
}

/** `createCodeTool`'s `session` option. */
export interface CodeToolSessionOptions extends SessionPoolOptions {
  /**
   * Sessions shared with other tools (see {@link createCodeSessionPool}); its `idleMs` and
   * `maxSessions` apply, and the tool's `close()` leaves it open. Default: a pool of the tool's
   * own, made with this option's `idleMs` and `maxSessions`, which the tool's `close()` ends.
   */
  pool?: CodeSessionPool;
}

/** The key of calls that name no conversation: a tool serving one conversation needs none. */
export const DEFAULT_CONVERSATION_KEY = "default";

/** What the tool runs cells with: its options, resolved. */
export interface SessionCellsSetup extends Omit<ExecuteCodeOptions, "code" | "signal" | "environment" | "onApproval" | "onEvent"> {
  environment: Environment | (() => Environment | Promise<Environment>);
  tools: readonly ToolDefinition[];
  limits: ExecutionLimits;
  moduleName: string;
}

/** One call's part: its conversation, abort signal, approver and listeners. */
export interface SessionCall {
  conversationKey?: string | undefined;
  reset?: boolean | undefined;
  signal?: AbortSignal | undefined;
  onApproval?: ApprovalHandler | undefined;
  listeners: readonly ((event: RunEvent) => unknown)[];
}

export class SessionCells {
  readonly pool: CodeSessionPool;
  readonly ownsPool: boolean;
  readonly #setup: SessionCellsSetup;
  readonly #fingerprint: string;
  readonly #tools: ReadonlyMap<string, ToolDefinition>;

  constructor(setup: SessionCellsSetup, options: CodeToolSessionOptions) {
    this.#setup = setup;
    this.ownsPool = options.pool === undefined;
    this.pool = options.pool ?? createCodeSessionPool(options);
    this.#fingerprint = sessionFingerprint({ ...setup, environment: setup.environment });
    this.#tools = new Map(setup.tools.map((tool) => [tool.name, tool]));
  }

  /** Runs `code` as a cell of the call's conversation (after a reset when asked). */
  async run(code: string, call: SessionCall): Promise<CodeSessionResult> {
    const key = call.conversationKey ?? DEFAULT_CONVERSATION_KEY;
    return this.pool.use(
      key,
      this.#fingerprint,
      () => this.#open(),
      async ({ session: routed, origin, previousEnd }) => {
        if (call.reset === true && origin === "existing") await routed.session.reset();
        routed.route = { onApproval: call.onApproval, listeners: call.listeners, tools: this.#tools };
        try {
          const result = await routed.session.run(code, call.signal ? { signal: call.signal } : {});
          // A cell that lost its own kernel already says so; otherwise the pool's reason is the news.
          return previousEnd === undefined || call.reset === true || result.state === "lost"
            ? result
            : withLossNote(result, previousEnd, this.pool.idleMs);
        } finally {
          routed.route = undefined;
        }
      },
    );
  }

  async #open(): Promise<RoutedSession> {
    const { environment: provide, ...options } = this.#setup;
    const environment = typeof provide === "function" ? await provide() : provide;
    // Cells run one at a time: the running cell's call decides and listens.
    const routed: RoutedSession = {
      session: createCodeSession({
        ...options,
        environment,
        tools: options.tools.map((tool) => routedTool(tool, () => routed.route?.tools.get(tool.name))),
        // Only where a call can need approval: an approver makes a session pause the time limit
        // for approvals, which a tool set without such tools never waits for.
        ...(this.#setup.tools.some((tool) => tool.needsApproval !== undefined && tool.needsApproval !== false)
          ? {
              onApproval: (request: ApprovalRequest) => {
                const handler = routed.route?.onApproval;
                if (handler === undefined)
                  return { type: "deny" as const, reason: `${request.tool} needs approval, and nobody can approve calls in this run` };
                return handler(request);
              },
            }
          : {}),
        onEvent: (event) => (routed.route === undefined ? undefined : callEachHolding(routed.route.listeners, event)),
      }),
      route: undefined,
      close: () => routed.session.close(),
    };
    return routed;
  }
}

const LOSS_REASONS: Record<SessionEndReason, (idleMs: number) => string> = {
  idle: (idleMs) => `the conversation's session had ended after ${describeIdleTime(idleMs)} without a call`,
  evicted: () => "the conversation's session had been ended to make room for another conversation's",
  "tools-changed": () => "the available tools changed, so the conversation's session was replaced",
  ended: () => "the conversation's session had been ended by the host",
};

/** A new session's first result, saying that the conversation's earlier state is gone and why. */
function withLossNote(result: CodeSessionResult, reason: SessionEndReason, idleMs: number): CodeSessionResult {
  const stateNote = `Earlier state is gone: ${LOSS_REASONS[reason](idleMs)}; this script ran in a fresh session (rerun earlier imports and setup).`;
  return { ...result, state: "lost", stateNote, output: appendNotice(result.output, `[${stateNote}]`) };
}
