/**
 * The host side of the protocol, shared by every transport: it checks the run token, the tool
 * allow-list, the arguments (against the tool's JSON Schema) and the tool-call budget, runs the
 * tool, and produces exactly one response frame per request — an error frame for anything
 * malformed. Transports only move frames.
 */
import { debugLogger } from "../debug/debug-log.js";
import type { Environment } from "../environment.js";
import { errorMessage } from "../errors.js";
import { callSafely } from "../safe-callback.js";
import { firstInexactInteger, showInteger } from "../protocol/inexact-integers.js";
import { DEFAULT_MAX_JSON_DEPTH, measureJson } from "../protocol/json-measure.js";
import { findLostInJson } from "../protocol/lost-in-json.js";
import { ConnectionBudget, DEFAULT_MAX_CONNECTIONS, UNFINISHED_FRAMES_PER_RUN } from "../protocol/connection-budget.js";
import {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  parseRequest,
  PROTOCOL_VERSION,
  rpcError,
  RpcErrorCode,
  rpcResult,
  RpcMethod,
  sniffRequestId,
  type RpcFailure,
  type RpcId,
  type RpcRequest,
} from "../protocol/messages.js";
import { validateAgainstSchema } from "../schema/validate.js";
import type { ApprovalHandler } from "../approval.js";
import type { RunEvent, ToolCallEndEvent, ToolCallOutcome, ToolCallStartEvent, ToolRunEvent } from "../events.js";
import type { ToolDefinition } from "../tool.js";
import { ApprovalGate, type ApprovalVerdict } from "./approval-gate.js";
import { constantTimeEqual } from "./constant-time.js";
import { InFlightCall, isThenable } from "./in-flight-call.js";
import { REFUSED_FRAMES_PER_RUN, RefusalBudget } from "./refusal-budget.js";

/** Default tool-call budget of one run. */
export const DEFAULT_MAX_TOOL_CALLS = 50;

/**
 * Reported around every dispatched tool call, the shape `onToolCall` has always had: the start
 * and end of {@link ToolRunEvent}s, by the guest's request id. `onEvent` has the same and more.
 */
export type ToolCallEvent =
  | { phase: "start"; id: RpcId; name: string; arguments: Record<string, unknown> }
  | { phase: "end"; id: RpcId; name: string; durationMs: number; ok: boolean; error?: string };

export interface RpcDispatcherOptions {
  /** The tools the guest may call: the allow-list. An empty list means no tools. */
  tools: readonly ToolDefinition[];
  /** The per-run secret every connection must present in `hello`. */
  token: string;
  /**
   * Dispatched calls allowed in this run (default 50). Refused calls do not count here; they count
   * their bytes against a budget of their own (16 frames' worth, see `refusal-budget.ts`).
   */
  maxToolCalls?: number;
  /** Passed to tools as `context.environment`. */
  environment: Environment;
  runId: string;
  /**
   * Every tool-call and approval event of the run, in order. It cannot break the run: what it
   * throws (or an async one rejects with) is ignored.
   */
  onEvent?: (event: ToolRunEvent) => void;
  /** The start and end of each call in the older shape (see {@link ToolCallEvent}); ignored likewise. */
  onToolCall?: (event: ToolCallEvent) => void;
  /**
   * Decides the calls of tools that declare `needsApproval`. Without it such calls are denied
   * (fail closed). See {@link ApprovalHandler}.
   */
  onApproval?: ApprovalHandler;
  /** Longest wait for one approval (default 5 minutes); then the call is denied. */
  approvalTimeoutMs?: number;
  /** Pauses the script's time limit while a call waits for approval; returns the release. */
  holdTimeLimit?: () => () => void;
  /**
   * Runs each tool's `execute` (e.g. inside a tracing context, so the tool's own spans nest under
   * its call) and returns what it returns: a tool that answers synchronously stays synchronous.
   * Default: calls it.
   */
  runTool?: <T>(call: ToolCallStartEvent, execute: () => T) => T;
  /**
   * Largest frame in bytes, the newline excluded (default 16 MiB). A tool result whose answer
   * would be larger becomes a `ToolFailed` error naming the limit, so no guest ever receives
   * (and no host ever queues) more than this for one call.
   */
  maxFrameBytes?: number;
  /**
   * Deepest nesting of arguments and results, in levels of arrays/objects (default 64). Deeper
   * requests are refused before they are parsed; deeper results become a `ToolFailed` error
   * naming the limit (guest JSON decoders recurse once per level).
   */
  maxJsonDepth?: number;
  /**
   * Byte-stream connections (sockets, relayed connections) the run may have open at once (default
   * 1024); one more is refused with an error and closed. Their unfinished frames may hold 4 frames'
   * worth of bytes in all (see `connection-budget.ts`).
   */
  maxConnections?: number;
}

/** Tool error messages are cut to this many characters (a model needs no more, a frame no bigger). */
const MAX_ERROR_MESSAGE_CHARS = 16_384;
/** Levels a request adds around its arguments: the request object and `params`. */
const REQUEST_ENVELOPE_DEPTH = 2;
/** Levels an answer adds around its result: the response object. */
const RESPONSE_ENVELOPE_DEPTH = 1;

const log = debugLogger("rpc");

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
  /** @internal Read by {@link RpcConnection}. */
  readonly maxFrameBytes: number;
  /** @internal Read by {@link RpcConnection}. */
  readonly maxJsonDepth: number;
  /** @internal What the run's byte-stream connections may hold in all; read by `CallFlow`. */
  readonly connectionBudget: ConnectionBudget;
  readonly #inFlight = new Set<InFlightCall>();
  /** Dispatched calls whose end is not reported yet (they outlive `#inFlight` by their last steps). */
  readonly #running = new Set<Promise<string>>();
  readonly #approvals: ApprovalGate;
  readonly #refusals: RefusalBudget;
  #toolCallsMade = 0;
  #closedReason: string | undefined;

  constructor(options: RpcDispatcherOptions) {
    this.#options = options;
    this.#tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    this.connectionBudget = new ConnectionBudget(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, this.maxFrameBytes * UNFINISHED_FRAMES_PER_RUN);
    this.#refusals = new RefusalBudget(this.maxFrameBytes * REFUSED_FRAMES_PER_RUN);
    this.#approvals = new ApprovalGate({
      runId: options.runId,
      onApproval: options.onApproval,
      timeoutMs: options.approvalTimeoutMs,
      holdTimeLimit: options.holdTimeLimit,
      emit: (event) => this.#emit(event),
    });
  }

  /**
   * Tool calls dispatched so far (refused ones excluded). A call that asked for approval counts
   * whatever the answer: so the budget bounds the approval requests of a run too, and with them
   * how long approvals can pause its time limit.
   */
  get toolCallsMade(): number {
    return this.#toolCallsMade;
  }

  /**
   * @internal What refused requests may still cost: the run's. Read by {@link RpcConnection} before
   * it reads a frame, and charged with each refusal.
   */
  get refusals(): RefusalBudget {
    return this.#refusals;
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
    for (const call of this.#inFlight) call.cancel(reason);
    this.#inFlight.clear();
  }

  /**
   * Resolves once every dispatched call has reported its end. After `close()` that is at once
   * (cancelled calls answer without waiting for their tools), so a run's last event is never
   * followed by a call's.
   */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /**
   * @internal Runs one authenticated `tools/call` request: its response frame, at once when nothing
   * had to wait (a refusal, a tool that answered synchronously), else a promise of it. `frame`, the
   * request's text, is checked for integers its parse rounded (see {@link firstInexactInteger});
   * `frameBytes`, its size, is what a refusal counts against {@link refusals}.
   */
  callTool(request: RpcRequest, frame?: string, frameBytes = 0): string | Promise<string> {
    const { id } = request;
    const refuse = (response: RpcFailure) => this.refuse(response, frameBytes);
    const params = (request.params ?? {}) as Record<string, unknown>;
    const name = params.name;
    if (typeof name !== "string" || name === "") {
      return refuse(rpcError(id, RpcErrorCode.InvalidParams, "tools/call needs params.name, the tool name"));
    }
    const tool = this.#tools.get(name);
    if (!tool) return refuse(rpcError(id, RpcErrorCode.ToolNotAvailable, this.#notAvailableMessage(name)));

    const args = params.arguments ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return refuse(rpcError(id, RpcErrorCode.InvalidParams, "Invalid arguments: arguments must be an object"));
    }
    const inexact = frame === undefined ? undefined : firstInexactInteger(frame);
    if (inexact !== undefined) {
      return refuse(
        rpcError(
          id,
          RpcErrorCode.InvalidParams,
          `Invalid arguments: the integer ${showInteger(inexact)} cannot reach the tool exactly (the host holds integers exactly up to ` +
            `±${Number.MAX_SAFE_INTEGER}; it would become ${Number(inexact)}). Pass it as a string, or as a float if an approximation will do`,
        ),
      );
    }
    const issues = validateAgainstSchema(args, tool.parameters);
    if (issues.length > 0) {
      return refuse(rpcError(id, RpcErrorCode.InvalidParams, `Invalid arguments: ${issues.join("; ")}`, { issues }));
    }
    if (this.#closedReason !== undefined) {
      return refuse(rpcError(id, RpcErrorCode.Cancelled, `Tool call cancelled: ${this.#closedReason}`));
    }
    if (this.#toolCallsMade >= this.#maxToolCalls) {
      return refuse(
        rpcError(id, RpcErrorCode.ToolCallLimit, `Tool call limit reached (${this.#maxToolCalls}). No more tool calls allowed in this execution.`),
      );
    }
    this.#toolCallsMade += 1;
    // The call's number in the run is its id in events, approvals and spans.
    const answer = this.#run(id, String(this.#toolCallsMade), tool, args as Record<string, unknown>);
    // A call answered synchronously has already reported its end: only a waiting one is tracked.
    if (typeof answer === "string") return answer;
    this.#running.add(answer);
    const settled = () => void this.#running.delete(answer);
    answer.then(settled, settled);
    return answer;
  }

  /** @internal Counts a refused request of `frameBytes` bytes against {@link refusals}; returns its answer frame. */
  refuse(response: RpcFailure, frameBytes: number): string {
    this.refusals.charge(frameBytes);
    return refusalFrame(response);
  }

  /**
   * Starts a dispatched call: reports its start, asks for approval when its tool declares a rule,
   * and runs it. Never throws, never rejects: every outcome becomes the call's answer frame.
   */
  #run(id: RpcId, callId: string, tool: ToolDefinition, args: Record<string, unknown>): string | Promise<string> {
    const call = new InFlightCall();
    this.#inFlight.add(call);
    const start: ToolCallStartEvent = {
      type: "tool-call-start",
      runId: this.#options.runId,
      callId,
      requestId: id,
      tool: tool.name,
      arguments: args,
    };
    const running: RunningCall = { call, tool, args, start, started: performance.now() };
    this.#emit(start);
    if (log.enabled) log(() => `call ${JSON.stringify(id)} ${tool.name}: started, arguments ${measureJson(JSON.stringify(args)).bytes} bytes`);
    // Only a tool that declares a rule goes through the gate (which may ask, and creates the
    // call's signal); the common call skips it.
    if (tool.needsApproval !== undefined && tool.needsApproval !== false) return this.#runGated(running);
    return this.#execute(running, undefined);
  }

  /** A call whose tool declares `needsApproval`: the gate decides, then the tool runs (or the call is denied). */
  async #runGated(running: RunningCall): Promise<string> {
    const { call, tool, start } = running;
    let verdict: ApprovalVerdict | undefined;
    try {
      verdict = await this.#approvals.check({ tool, args: running.args, callId: start.callId, requestId: start.requestId, signal: call.signal });
    } catch (error) {
      return this.#end(running, this.#failure(running, error), undefined);
    }
    if (verdict?.approved === false) {
      return this.#end(running, { failure: `Tool call denied: ${verdict.reason}`, code: RpcErrorCode.ApprovalDenied }, verdict.waitMs);
    }
    return this.#execute(running, verdict?.waitMs);
  }

  /**
   * Runs the tool. A tool that answers synchronously is not awaited: its answer is returned as it
   * is, without a detour through the microtask queue. A sync throw is a failure like a rejection.
   */
  #execute(running: RunningCall, approvalWaitMs: number | undefined): string | Promise<string> {
    const { call, tool, start } = running;
    // Cancelled between its approval and now (the run stopped as the verdict came): not run at all.
    if (call.cancelled) return this.#end(running, this.#failure(running, call.reason), approvalWaitMs);
    let value: unknown;
    let thenable: boolean;
    try {
      const context = call.context(this.#options.environment, this.#options.runId, start.callId);
      const runTool = this.#options.runTool;
      const args = running.args;
      value = runTool ? runTool(start, () => tool.execute(args, context)) : tool.execute(args, context);
      // Inside the try: reading `then` of a hostile result may throw.
      thenable = isThenable(value);
    } catch (error) {
      return this.#end(running, this.#failure(running, error), approvalWaitMs);
    }
    if (!thenable) return this.#end(running, { result: value }, approvalWaitMs);
    return call.race(value as PromiseLike<unknown>).then(
      (result) => this.#end(running, { result }, approvalWaitMs),
      (error: unknown) => this.#end(running, this.#failure(running, error), approvalWaitMs),
    );
  }

  /** Why a call failed: cancelled (the run ended first), or what its tool threw. */
  #failure({ call, tool }: RunningCall, error: unknown): CallFailure {
    return call.cancelled
      ? { failure: `Tool call cancelled: ${errorMessage(call.reason)}`, code: RpcErrorCode.Cancelled }
      : { failure: toolFailure(tool.name, error), code: RpcErrorCode.ToolFailed };
  }

  /** Ends a call: encodes its answer, reports its end and returns the answer frame. */
  #end(running: RunningCall, outcome: { result: unknown } | CallFailure, approvalWaitMs: number | undefined): string {
    const { call, tool, start } = running;
    this.#inFlight.delete(call);
    const id = start.requestId;
    const answer = "result" in outcome ? this.#encodeResult(id, tool.name, outcome.result) : outcome;
    const response = "frame" in answer ? answer : { failure: clip(answer.failure), code: answer.code };
    const durationMs = performance.now() - running.started;
    const ok = "frame" in response;
    const end: { -readonly [K in keyof ToolCallEndEvent]: ToolCallEndEvent[K] } = {
      type: "tool-call-end",
      runId: start.runId,
      callId: start.callId,
      requestId: id,
      tool: tool.name,
      durationMs,
      ok,
      outcome: ok ? "ok" : outcomeOf(response.code),
    };
    if (!ok) end.error = response.failure;
    if (approvalWaitMs !== undefined) end.approvalWaitMs = approvalWaitMs;
    this.#emit(end);
    if (log.enabled) {
      log(() => {
        const outcome = "frame" in response ? `ok, answer ${measureJson(response.frame).bytes} bytes` : errorName(response.code);
        return `call ${JSON.stringify(id)} ${tool.name}: ${outcome} after ${Math.round(durationMs)} ms`;
      });
    }
    return "frame" in response ? response.frame : frame(rpcError(id, response.code, response.failure));
  }

  /** Reports an event to `onEvent`, and a call's start and end to `onToolCall` in its older shape. */
  #emit(event: ToolRunEvent): void {
    callSafely(this.#options.onEvent, event);
    if (this.#options.onToolCall === undefined) return;
    const legacy = toToolCallEvent(event);
    if (legacy !== undefined) callSafely(this.#options.onToolCall, legacy);
  }

  /** The answer carrying a tool's result, or why it cannot be sent (not JSON, too deep, too large). */
  #encodeResult(id: RpcId, name: string, result: unknown): { frame: string } | { failure: string; code: number } {
    const refuse = (why: string) => ({ failure: `${name} returned a result that ${why}`, code: RpcErrorCode.ToolFailed });
    // JSON.stringify drops functions and symbols: the response would carry no result at all.
    if (typeof result === "function" || typeof result === "symbol") return refuse(`is not JSON: a ${typeof result}`);
    let encoded: string;
    try {
      encoded = frame(rpcResult(id, result));
    } catch (error) {
      // A BigInt, a cycle, a throwing getter or toJSON — or a RangeError: too deep or too long to encode at all.
      const limits = isRangeError(error) ? ` (results are limited to ${this.#limitsText()})` : "";
      return refuse(`is not JSON: ${errorMessage(error)}${limits}`);
    }
    // Measured without the newline, as the frame decoders count.
    const { depth, bytes } = measureJson(encoded.slice(0, -1));
    if (depth - RESPONSE_ENVELOPE_DEPTH > this.maxJsonDepth) {
      return refuse(`is nested deeper than the ${this.maxJsonDepth}-level limit of tool results`);
    }
    if (bytes > this.maxFrameBytes) {
      return refuse(`is too large: its answer takes ${bytes} bytes, over the ${this.maxFrameBytes}-byte frame limit`);
    }
    // A Map, a Set, an unawaited Promise… are encoded as `{}`: only then is the result looked through.
    const lost = encoded.includes("{}") ? findLostInJson(result) : undefined;
    if (lost) return refuse(`JSON would carry as {}: ${lost.what} at ${lost.path}; return plain objects, arrays and values`);
    return { frame: encoded };
  }

  #limitsText(): string {
    return `${this.maxJsonDepth} levels of nesting and a ${this.maxFrameBytes}-byte frame`;
  }

  #notAvailableMessage(name: string): string {
    const available = [...this.#tools.keys()].sort();
    return available.length === 0
      ? `Tool '${name}' is not available: no tools are enabled in this run.`
      : `Tool '${name}' is not available in this run. Available: ${available.join(", ")}`;
  }
}

/** A dispatched call while it runs. */
interface RunningCall {
  readonly call: InFlightCall;
  readonly tool: ToolDefinition;
  readonly args: Record<string, unknown>;
  /** Its start event: the call's identity and arguments. */
  readonly start: ToolCallStartEvent;
  /** `performance.now()` at dispatch. */
  readonly started: number;
}

/** A call's failure: the error message the script gets and its code. */
type CallFailure = { failure: string; code: number };

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

  /** @internal What the run's refused requests may still cost (see `refusal-budget.ts`); read by `CallFlow`. */
  get refusals(): RefusalBudget {
    return this.#dispatcher.refusals;
  }

  /** @internal The run's bounds on its byte-stream connections, shared by all of them. */
  get connectionBudget(): ConnectionBudget {
    return this.#dispatcher.connectionBudget;
  }

  /**
   * Handles one frame (a line without its newline) and resolves to the response frame to send,
   * newline included. Never rejects. Calls may be handled concurrently; each response carries the
   * id of its request.
   */
  handleFrame(line: string): Promise<string> {
    return Promise.resolve(this.answer(line));
  }

  /**
   * {@link handleFrame}, with the response returned at once when nothing had to wait (a refusal,
   * a tool that answered synchronously): byte-stream transports send it without a microtask hop.
   * Never throws, never rejects.
   */
  answer(line: string): string | Promise<string> {
    let answer: string | Promise<string>;
    try {
      answer = this.#handle(line);
    } catch (error) {
      return internalError(line, error);
    }
    return typeof answer === "string" ? answer : answer.then(undefined, (error: unknown) => internalError(line, error));
  }

  #handle(line: string): string | Promise<string> {
    const dispatcher = this.#dispatcher;
    // Checked before reading the frame at all: reading it is the cost the budget bounds.
    if (dispatcher.refusals.exhausted) return refusalFrame(this.#refusalLimit(line.slice(0, SNIFF_PREFIX_CHARS)));
    // Checked before parsing: a frame of 16 MiB of "[" would otherwise become millions of objects.
    const depthLimit = dispatcher.maxJsonDepth;
    const { depth, bytes } = measureJson(line);
    const refuse = (response: RpcFailure) => dispatcher.refuse(response, bytes);
    if (depth > depthLimit + REQUEST_ENVELOPE_DEPTH) {
      return refuse(
        rpcError(
          sniffRequestId(line.slice(0, SNIFF_PREFIX_CHARS)),
          RpcErrorCode.InvalidRequest,
          `Request nested too deeply: arguments may nest at most ${depthLimit} levels of arrays/objects`,
        ),
      );
    }
    const parsed = parseRequest(line);
    if (!parsed.ok) return refuse(parsed.response);
    const { request } = parsed;
    if (request.method === RpcMethod.Hello) return this.#hello(request, refuse);
    if (!this.#authenticated) {
      return refuse(rpcError(request.id, RpcErrorCode.Unauthorized, "Unauthorized: send hello with the run token first"));
    }
    if (request.method === RpcMethod.ToolsCall) return dispatcher.callTool(request, line, bytes);
    return refuse(rpcError(request.id, RpcErrorCode.MethodNotFound, `Method not found: ${request.method}`));
  }

  /** The answer to every request once the run's refused requests have taken their budget (see `refusal-budget.ts`). */
  #refusalLimit(prefix: string): RpcFailure {
    return rpcError(
      sniffRequestId(prefix),
      RpcErrorCode.RefusalLimit,
      `Request refused: this run's refused requests already took ${this.#dispatcher.refusals.limit} bytes (malformed or oversized ` +
        `frames, unknown tools, invalid arguments, calls over the limit), the most the host answers for one run; no request of ` +
        `this run is read any more. Read the errors of the earlier calls and fix the calls instead of repeating them`,
    );
  }

  /**
   * The response to a frame that exceeded the size limit (its id recovered when possible), or, with
   * `over: "budget"`, that arrived while the run's connections held all the unfinished frames the
   * host buffers for a run, or once the run refuses every request (see {@link refusals}).
   */
  rejectOversizedFrame(prefix: string, bytes: number, maxFrameBytes: number, over: "frame" | "budget" = "frame"): string {
    // Once the run refuses every request, a frame skipped for that reason says so (see `call-flow.ts`).
    if (this.refusals.exhausted) return refusalFrame(this.#refusalLimit(prefix));
    const message =
      over === "frame"
        ? `Request too large: ${bytes} bytes exceeds the ${maxFrameBytes}-byte frame limit`
        : `Request refused: the run's connections already held ${this.connectionBudget.unfinishedFrames.limit} bytes of unfinished ` +
          `requests, the most the host buffers for one run; send large requests from fewer processes at once`;
    return this.#dispatcher.refuse(rpcError(sniffRequestId(prefix), RpcErrorCode.FrameTooLarge, message), bytes);
  }

  /** The answer to a connection over the run's limit (see {@link RpcDispatcherOptions.maxConnections}), which is then closed. */
  rejectConnection(): string {
    const { maxConnections } = this.connectionBudget;
    return this.#dispatcher.refuse(
      rpcError(
        null,
        RpcErrorCode.InvalidRequest,
        `Connection refused: this run already has ${maxConnections} connections to the host, the most it may have at once; ` +
          `make tool calls from fewer processes, or end the ones that are done`,
      ),
      0,
    );
  }

  #hello(request: RpcRequest, refuse: (response: RpcFailure) => string): string {
    const params = (request.params ?? {}) as Record<string, unknown>;
    // Any failed hello revokes the connection, whatever it was before.
    this.#authenticated = false;
    if (params.protocol !== PROTOCOL_VERSION) {
      return refuse(
        rpcError(
          request.id,
          RpcErrorCode.UnsupportedProtocol,
          `Unsupported protocol ${String(params.protocol)}; the host speaks ${PROTOCOL_VERSION}`,
        ),
      );
    }
    if (!this.#dispatcher.checkToken(params.token)) {
      return refuse(rpcError(request.id, RpcErrorCode.Unauthorized, "Unauthorized: wrong or missing run token"));
    }
    this.#authenticated = true;
    log(() => `connection authenticated (protocol ${PROTOCOL_VERSION})`);
    return frame(rpcResult(request.id, { protocol: PROTOCOL_VERSION }));
  }
}

const frame = encodeFrame;

/** The answer to a frame whose handling hit a defect (not a guest's doing): the guest still gets one, and the host stays up. */
function internalError(line: string, error: unknown): string {
  const id = sniffRequestId(line.slice(0, SNIFF_PREFIX_CHARS));
  return refusalFrame(rpcError(id, RpcErrorCode.InternalError, `Internal error: ${clip(errorMessage(error))}`));
}

/** The answer to a frame refused before any tool ran, logged by its error code: messages may quote argument values. */
function refusalFrame(response: RpcFailure): string {
  log(
    () =>
      `refused ${response.id === null ? "a frame without a usable id" : `request ${JSON.stringify(response.id)}`}: ${errorName(response.error.code)}`,
  );
  return frame(response);
}

/** `ToolFailed` for -32004; the number itself for a code the protocol does not name. */
function errorName(code: number): string {
  return Object.entries(RpcErrorCode).find(([, value]) => value === code)?.[0] ?? String(code);
}

/** A call's start or end in the shape of {@link ToolCallEvent}; undefined for other events. */
export function toToolCallEvent(event: RunEvent): ToolCallEvent | undefined {
  if (event.type === "tool-call-start") return { phase: "start", id: event.requestId, name: event.tool, arguments: event.arguments };
  if (event.type !== "tool-call-end") return undefined;
  const { requestId: id, tool: name, durationMs, ok, error } = event;
  return { phase: "end", id, name, durationMs, ok, ...(error === undefined ? {} : { error }) };
}

/** The outcome a failed call's error code stands for. */
function outcomeOf(code: number): ToolCallOutcome {
  if (code === RpcErrorCode.ApprovalDenied) return "denied";
  if (code === RpcErrorCode.Cancelled) return "cancelled";
  return "failed";
}

/**
 * What the script reads when tool `name` threw `error`: its message; for a throw of nothing (`throw
 * undefined`, a bare `reject()`), that the tool failed and how, not the bare word "undefined".
 */
function toolFailure(name: string, error: unknown): string {
  if (error === undefined || error === null) return `${name} failed (it threw ${String(error)}, not an Error)`;
  return errorMessage(error) || `${name} failed`;
}

/** Enough of a frame's start to read its `jsonrpc` and `id`. */
const SNIFF_PREFIX_CHARS = 256;

function clip(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… (${message.length - MAX_ERROR_MESSAGE_CHARS} more characters)`;
}

function isRangeError(error: unknown): boolean {
  try {
    return error instanceof RangeError;
  } catch {
    // A thrown Proxy whose getPrototypeOf trap throws.
    return false;
  }
}
