/**
 * The host side of the protocol, shared by every transport: it checks the run token, the tool
 * allow-list, the arguments (against the tool's JSON Schema) and the tool-call budget, runs the
 * tool, and produces exactly one response frame per request — an error frame for anything
 * malformed. Transports only move frames.
 */
import type { Environment } from "../environment.js";
import { errorMessage } from "../errors.js";
import {
  encodeFrame,
  parseRequest,
  PROTOCOL_VERSION,
  rpcError,
  RpcErrorCode,
  rpcResult,
  RpcMethod,
  sniffRequestId,
  type RpcId,
  type RpcRequest,
} from "../protocol/messages.js";
import { validateAgainstSchema } from "../schema/validate.js";
import type { ToolDefinition } from "../tool.js";
import { constantTimeEqual } from "./constant-time.js";

/** Default tool-call budget of one run. */
export const DEFAULT_MAX_TOOL_CALLS = 50;

/** Reported around every dispatched tool call (for progress output and logs). */
export type ToolCallEvent =
  | { phase: "start"; id: RpcId; name: string; arguments: Record<string, unknown> }
  | { phase: "end"; id: RpcId; name: string; durationMs: number; ok: boolean; error?: string };

export interface RpcDispatcherOptions {
  /** The tools the guest may call: the allow-list. An empty list means no tools. */
  tools: readonly ToolDefinition[];
  /** The per-run secret every connection must present in `hello`. */
  token: string;
  /** Dispatched calls allowed in this run (default 50). Refused calls do not count. */
  maxToolCalls?: number;
  /** Passed to tools as `context.environment`. */
  environment: Environment;
  runId: string;
  onToolCall?: (event: ToolCallEvent) => void;
}

/** Options of {@link RpcDispatcher.createConnection}. */
export interface ConnectionOptions {
  /**
   * The transport has already checked the token itself (e.g. the file transport, where every
   * request carries it), so `hello` is not required.
   */
  authenticated?: boolean;
}

/** Serves one run: counts the budget across all connections and cancels in-flight calls. */
export class RpcDispatcher {
  readonly #tools: ReadonlyMap<string, ToolDefinition>;
  readonly #options: RpcDispatcherOptions;
  readonly #maxToolCalls: number;
  readonly #inFlight = new Set<AbortController>();
  #toolCallsMade = 0;
  #closedReason: string | undefined;

  constructor(options: RpcDispatcherOptions) {
    this.#options = options;
    this.#tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  }

  /** Tool calls dispatched so far (refused ones excluded). */
  get toolCallsMade(): number {
    return this.#toolCallsMade;
  }

  /** Tool calls running right now. */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** A per-connection protocol state machine (authenticated after a good `hello`). */
  createConnection(options: ConnectionOptions = {}): RpcConnection {
    return new RpcConnection(this, options.authenticated ?? false);
  }

  /** Compares a presented token with the run's, in constant time. */
  checkToken(candidate: unknown): boolean {
    return typeof candidate === "string" && constantTimeEqual(candidate, this.#options.token);
  }

  /**
   * Aborts every in-flight tool call (each caller gets a `Cancelled` error at once) and refuses
   * new ones. Used when the run is interrupted, times out or ends.
   */
  close(reason = "the run has ended"): void {
    this.#closedReason ??= reason;
    for (const controller of this.#inFlight) controller.abort(reason);
    this.#inFlight.clear();
  }

  /** @internal Runs one authenticated `tools/call` request and returns its response frame. */
  async callTool(request: RpcRequest): Promise<string> {
    const { id } = request;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const name = params.name;
    if (typeof name !== "string" || name === "") {
      return frame(rpcError(id, RpcErrorCode.InvalidParams, 'tools/call needs params.name, the tool name'));
    }
    const tool = this.#tools.get(name);
    if (!tool) return frame(rpcError(id, RpcErrorCode.ToolNotAvailable, this.#notAvailableMessage(name)));

    const args = params.arguments ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return frame(rpcError(id, RpcErrorCode.InvalidParams, "Invalid arguments: arguments must be an object"));
    }
    const issues = validateAgainstSchema(args, tool.parameters);
    if (issues.length > 0) {
      return frame(rpcError(id, RpcErrorCode.InvalidParams, `Invalid arguments: ${issues.join("; ")}`, { issues }));
    }
    if (this.#closedReason !== undefined) {
      return frame(rpcError(id, RpcErrorCode.Cancelled, `Tool call cancelled: ${this.#closedReason}`));
    }
    if (this.#toolCallsMade >= this.#maxToolCalls) {
      return frame(
        rpcError(
          id,
          RpcErrorCode.ToolCallLimit,
          `Tool call limit reached (${this.#maxToolCalls}). No more tool calls allowed in this execution.`,
        ),
      );
    }
    this.#toolCallsMade += 1;
    return this.#run(id, tool, args as Record<string, unknown>);
  }

  async #run(id: RpcId, tool: ToolDefinition, args: Record<string, unknown>): Promise<string> {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const started = performance.now();
    this.#options.onToolCall?.({ phase: "start", id, name: tool.name, arguments: args });
    let response: string;
    let failure: string | undefined;
    try {
      const result = await raceAbort(
        Promise.resolve().then(() =>
          tool.execute(args, { environment: this.#options.environment, signal: controller.signal, runId: this.#options.runId }),
        ),
        controller.signal,
      );
      // JSON.stringify drops functions and symbols: the response would carry no result at all.
      if (typeof result === "function" || typeof result === "symbol") throw new NotJsonError(`a ${typeof result}`);
      response = frame(rpcResult(id, result));
    } catch (error) {
      if (controller.signal.aborted) {
        failure = `Tool call cancelled: ${errorMessage(controller.signal.reason)}`;
        response = frame(rpcError(id, RpcErrorCode.Cancelled, failure));
      } else if (error instanceof NotJsonError) {
        failure = `${tool.name} returned a result that is not JSON: ${error.message}`;
        response = frame(rpcError(id, RpcErrorCode.ToolFailed, failure));
      } else {
        failure = errorMessage(error) || `${tool.name} failed`;
        response = frame(rpcError(id, RpcErrorCode.ToolFailed, failure));
      }
    } finally {
      this.#inFlight.delete(controller);
    }
    this.#options.onToolCall?.({
      phase: "end",
      id,
      name: tool.name,
      durationMs: performance.now() - started,
      ok: failure === undefined,
      ...(failure === undefined ? {} : { error: failure }),
    });
    return response;
  }

  #notAvailableMessage(name: string): string {
    const available = [...this.#tools.keys()].sort();
    return available.length === 0
      ? `Tool '${name}' is not available: no tools are enabled in this run.`
      : `Tool '${name}' is not available in this run. Available: ${available.join(", ")}`;
  }
}

/** One connection's view of the protocol: `hello` first, then calls. */
export class RpcConnection {
  readonly #dispatcher: RpcDispatcher;
  #authenticated: boolean;

  /** @internal Use {@link RpcDispatcher.createConnection}. */
  constructor(dispatcher: RpcDispatcher, authenticated: boolean) {
    this.#dispatcher = dispatcher;
    this.#authenticated = authenticated;
  }

  get authenticated(): boolean {
    return this.#authenticated;
  }

  /**
   * Handles one frame (a line without its newline) and resolves to the response frame to send,
   * newline included. Never rejects. Calls may be handled concurrently; each response carries the
   * id of its request.
   */
  async handleFrame(line: string): Promise<string> {
    const parsed = parseRequest(line);
    if (!parsed.ok) return frame(parsed.response);
    const { request } = parsed;
    if (request.method === RpcMethod.Hello) return this.#hello(request);
    if (!this.#authenticated) {
      return frame(rpcError(request.id, RpcErrorCode.Unauthorized, "Unauthorized: send hello with the run token first"));
    }
    if (request.method === RpcMethod.ToolsCall) return this.#dispatcher.callTool(request);
    return frame(rpcError(request.id, RpcErrorCode.MethodNotFound, `Method not found: ${request.method}`));
  }

  /** The response to a frame that exceeded the size limit (its id recovered when possible). */
  rejectOversizedFrame(prefix: string, bytes: number, maxFrameBytes: number): string {
    return frame(
      rpcError(
        sniffRequestId(prefix),
        RpcErrorCode.FrameTooLarge,
        `Request too large: ${bytes} bytes exceeds the ${maxFrameBytes}-byte frame limit`,
      ),
    );
  }

  #hello(request: RpcRequest): string {
    const params = (request.params ?? {}) as Record<string, unknown>;
    // Any failed hello revokes the connection, whatever it was before.
    this.#authenticated = false;
    if (params.protocol !== PROTOCOL_VERSION) {
      return frame(
        rpcError(request.id, RpcErrorCode.UnsupportedProtocol, `Unsupported protocol ${String(params.protocol)}; the host speaks ${PROTOCOL_VERSION}`),
      );
    }
    if (!this.#dispatcher.checkToken(params.token)) {
      return frame(rpcError(request.id, RpcErrorCode.Unauthorized, "Unauthorized: wrong or missing run token"));
    }
    this.#authenticated = true;
    return frame(rpcResult(request.id, { protocol: PROTOCOL_VERSION }));
  }
}

/** Raised when a response cannot be serialised (a tool returned a BigInt, a cycle, ...). */
class NotJsonError extends Error {}

function frame(message: Parameters<typeof encodeFrame>[0]): string {
  try {
    return encodeFrame(message);
  } catch (error) {
    throw new NotJsonError(errorMessage(error));
  }
}

/** Settles with the promise, or rejects as soon as the signal aborts (the tool may keep running). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
