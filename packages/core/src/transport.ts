import type { Environment } from "./environment.js";
import type { RpcDispatcher } from "./rpc/dispatcher.js";

/** Languages a guest client can be generated for. */
export type GuestLanguage = "python";

/** What a transport gets for one run. */
export interface RunContext {
  readonly runId: string;
  /** The run's private (0700) directory inside the environment; removed by core after the run. */
  readonly runDir: string;
  /** The per-run secret; guests must present it (the dispatcher checks it). */
  readonly token: string;
  /** Answers every frame; the transport only moves frames to it and back. */
  readonly dispatcher: RpcDispatcher;
  /** Upper bound of one frame in bytes; larger frames get an error response. */
  readonly maxFrameBytes: number;
  /**
   * The Python interpreter command the script runs with inside the environment, for transports
   * that run a helper of their own there (the stream transport's relay).
   */
  readonly interpreter: string;
}

/** A transport's serving state for one run. */
export interface TransportSession {
  /** Variables the guest client needs (socket path, request dir, ...), added to the script's env. */
  readonly guestEnv: Readonly<Record<string, string>>;
  /** Stops serving, rejects pending work and releases resources. Idempotent. */
  close(): Promise<void>;
}

/**
 * Carries JSON-RPC frames between the guest and the host. Transports never import backends: they
 * use only the Environment contract.
 */
export interface Transport {
  /** The contract version this transport implements; hosts refuse another one. */
  readonly specificationVersion: "v1";
  /** "uds", "file", "stream", or a third-party name. */
  readonly id: string;
  /** True when this transport can serve a run in `environment`. */
  supports(environment: Environment): boolean;
  /**
   * What an environment must offer for {@link supports} to hold, in a few words ("the local
   * backend: ..."): the error for an environment no candidate supports quotes it.
   */
  readonly requires?: string;
  /** Starts serving the run's frames. */
  open(environment: Environment, run: RunContext): Promise<TransportSession>;
  /**
   * Source of the guest-side client. For Python: a module, shipped to the run as
   * `_codecall_client` beside the tools module, that defines
   * `submit(method: str, params: dict) -> concurrent.futures.Future`, thread-safe, which resolves
   * to the JSON-RPC result or fails with `ToolError`; it may also define a blocking
   * `call(method: str, params: dict)`, which returns that result or raises, and which blocking
   * tool calls then use (a future costs a thread hand-off per call). It imports what it needs
   * explicitly: the wire format and `ToolError` from `_codecall_protocol` (`encode_request`,
   * `decode_answer`, `answer_id`, `failed_future`, `settle`, `settle_response`,
   * `response_outcome`), the rest from the standard library.
   * `src/guest/python/_codecall_client.pyi` in codecall's repository states the contract for type
   * checkers (https://github.com/codecall/codecall/blob/main/packages/core/src/guest/python/_codecall_client.pyi).
   */
  guestClient(language: GuestLanguage): string;
}
