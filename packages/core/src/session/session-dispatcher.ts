/**
 * The dispatcher a session's transport serves for the whole life of its kernel. It holds no tools
 * of its own: each call goes to the dispatcher of the cell that is running (its budget, events,
 * approvals and time limit are the cell's, as a run's are in `executeCode`). The kernel tags every
 * call with the cell whose code made it (see `_codecall_kernel.py`), so a call from a thread an
 * earlier cell left running is refused, with a message that says why, instead of counting
 * against the running cell.
 */
import type { Environment } from "../environment.js";
import { rpcError, RpcErrorCode, type RpcRequest } from "../protocol/messages.js";
import { RpcDispatcher } from "../rpc/dispatcher.js";
import type { RefusalBudget } from "../rpc/refusal-budget.js";

/** The running cell, as the session dispatcher routes to it. */
export interface RunningCell {
  readonly number: number;
  readonly dispatcher: RpcDispatcher;
}

export interface SessionDispatcherOptions {
  /** The kernel's token (every connection presents it). */
  token: string;
  environment: Environment;
  runId: string;
  maxFrameBytes: number;
  maxJsonDepth: number;
}

export class SessionDispatcher extends RpcDispatcher {
  #cell: RunningCell | undefined;
  /** The last cell that ran, for the message to a late caller. */
  #lastCell = 0;

  constructor(options: SessionDispatcherOptions) {
    super({ ...options, tools: [] });
  }

  /** From now on calls of `cell` go to its dispatcher. */
  begin(cell: RunningCell): void {
    this.#cell = cell;
    this.#lastCell = cell.number;
  }

  /** The running cell has ended: calls are refused until the next begins. */
  end(): void {
    this.#cell = undefined;
  }

  /**
   * @internal The running cell's budget of refused requests, as a run's is its own: a cell that
   * spends it does not leave the next cell of the session without one.
   */
  override get refusals(): RefusalBudget {
    return this.#cell?.dispatcher.refusals ?? super.refusals;
  }

  /** @internal Routes an authenticated `tools/call` request to the running cell's dispatcher. */
  override callTool(request: RpcRequest, frame?: string, frameBytes = 0): string | Promise<string> {
    const params = request.params;
    const tagged = typeof params === "object" && params !== null ? (params as Record<string, unknown>).cell : undefined;
    // A call without a tag comes from a process that did not inherit the kernel's (a Python
    // subprocess of the cell): it is the running cell's.
    const from = typeof tagged === "number" ? tagged : this.#cell?.number;
    if (this.#cell !== undefined && from === this.#cell.number) return this.#cell.dispatcher.callTool(request, frame, frameBytes);
    const ended = from ?? this.#lastCell;
    const running = this.#cell === undefined ? "no cell is running" : `only code of the running cell (${this.#cell.number}) may call tools`;
    return this.refuse(
      rpcError(
        request.id,
        RpcErrorCode.Cancelled,
        `Tool call refused: it came from code of cell ${ended}, which has ended (a thread or process it left running); ${running}.`,
      ),
      frameBytes,
    );
  }
}
