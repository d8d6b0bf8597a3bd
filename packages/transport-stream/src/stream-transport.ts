/**
 * The stream transport: the script's processes connect to a private Unix socket in the run dir
 * exactly as they would to the uds transport's, and their bytes reach the host over an open stream,
 * so a tool call costs one backend round trip instead of a polling cycle. Who listens on that socket:
 *
 * - the environment itself, when it offers `listenUnix` (its agent, on the exec backends): no
 *   process at all is started for the run;
 * - otherwise the transport's own relay, one long-lived process per run (`spawn` with open stdio:
 *   a docker exec, an ssh channel) that carries the connections over its stdin/stdout.
 */
import {
  TRANSPORT_SPECIFICATION_VERSION,
  CodecallError,
  type Environment,
  type GuestLanguage,
  type RunContext,
  type Transport,
  type TransportSession,
} from "@codecall/core";
import { PYTHON_SOCKET_CLIENT } from "@codecall/core/protocol";
import { guestClientFor, isCommandNotFound, missingInterpreterMessage, shellQuote, socketPathTooLong } from "@codecall/core/plugin-kit";
import relaySource from "./guest/relay.py?raw";
import { ConnectionFlow } from "./connection-flow.js";
import { RelayLink, RelayStartError } from "./relay-link.js";

/**
 * `python -c` program that reads the relay's source from stdin (its byte length on the first line)
 * and runs it; the relay then reads its frames from the same buffered stdin.
 */
const RELAY_BOOTSTRAP = 'import sys; n = int(sys.stdin.buffer.readline()); exec(compile(sys.stdin.buffer.read(n), "codecall-relay.py", "exec"))';

/** The relay, the script, and one tool command. */
const MIN_CONCURRENT_EXECS = 3;

export interface StreamTransportOptions {
  /** How long the relay may take to start listening before `open()` fails (default 15 s). */
  startTimeoutMs?: number;
  /** After the run, how long the relay gets to exit on its own before it is killed (default 2 s). */
  closeGraceMs?: number;
}

export class StreamTransport implements Transport {
  readonly specificationVersion = TRANSPORT_SPECIFICATION_VERSION;
  readonly id = "stream";
  readonly #startTimeoutMs: number;
  readonly #closeGraceMs: number;

  constructor(options: StreamTransportOptions = {}) {
    this.#startTimeoutMs = positive(options.startTimeoutMs, 15_000, "startTimeoutMs");
    this.#closeGraceMs = positive(options.closeGraceMs, 2_000, "closeGraceMs");
  }

  /**
   * Needs stdio that stays open, and room for three execs at once: the relay holds one for the
   * whole run, the script another, and tools need at least one more (else a tool call would wait
   * for a slot the script never frees).
   */
  readonly requires = `a backend whose processes keep stdin and stdout open and that runs ${MIN_CONCURRENT_EXECS} commands at once (docker, ssh)`;

  supports(environment: Environment): boolean {
    const { streamingStdio, maxConcurrentExec } = environment.capabilities;
    return streamingStdio && (maxConcurrentExec === undefined || maxConcurrentExec >= MIN_CONCURRENT_EXECS);
  }

  guestClient(language: GuestLanguage): string {
    return guestClientFor(this.id, language, { python: PYTHON_SOCKET_CLIENT });
  }

  async open(environment: Environment, run: RunContext): Promise<TransportSession> {
    const socketPath = `${run.runDir}/rpc.sock`;
    const tooLong = socketPathTooLong(socketPath);
    if (tooLong !== undefined) {
      throw new CodecallError(
        "TRANSPORT_FAILED",
        `the run dir ${run.runDir} is too long for a Unix socket path (${tooLong}); give the environment a shorter temp dir`,
      );
    }
    const guestEnv = { CODECALL_RPC_SOCKET: socketPath, CODECALL_RPC_TOKEN: run.token };
    const served = await this.#listenInEnvironment(environment, socketPath, run);
    if (served) return { guestEnv, close: served };
    // The relay's source goes down its own stdin ahead of the frames: no file to write first, which
    // on Docker is a whole exec saved.
    // The relay needs nothing of the environment's variables but PATH (to find the interpreter):
    // it starts from an empty environment, so none of them sit in its /proc/PID/environ.
    const { PATH } = await environment.defaultEnv();
    const relay = await environment.spawn(`exec ${run.interpreter} -c ${shellQuote(RELAY_BOOTSTRAP)} ${shellQuote(socketPath)}`, {
      cwd: run.runDir,
      clearEnv: true,
      env: { ...(PATH === undefined ? {} : { PATH }), PYTHONDONTWRITEBYTECODE: "1" },
    });
    const link = new RelayLink(relay, run, relaySource);
    try {
      await link.ready(this.#startTimeoutMs);
    } catch (error) {
      await relay.kill().catch(() => {});
      const missing = error instanceof RelayStartError && error.exit !== undefined && isCommandNotFound(error.exit.exitCode, error.stderr);
      const why = missing ? missingInterpreterMessage(run.interpreter) : (error as Error).message;
      throw new CodecallError("TRANSPORT_FAILED", `the stream relay did not start: ${why}`, { cause: error });
    }
    return { guestEnv, close: () => link.close(this.#closeGraceMs) };
  }

  /** Serves the socket through the environment when it can (its agent); returns how to stop, or `undefined`. */
  async #listenInEnvironment(environment: Environment, socketPath: string, run: RunContext): Promise<(() => Promise<void>) | undefined> {
    const flows = new Set<ConnectionFlow>();
    const listener = await environment.listenUnix?.(socketPath, (connection) => {
      const flow = new ConnectionFlow(connection, run);
      flows.add(flow);
      void flow.done.then(() => flows.delete(flow));
    });
    if (listener === undefined) return undefined;
    return async () => {
      for (const flow of flows) flow.close();
      await listener.close();
    };
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new CodecallError("INVALID_OPTIONS", `${name} must be a positive number of ms, got ${String(value)}`);
  return value;
}

/** Creates the transport (the entry point the resolver calls). */
export function createTransport(options: StreamTransportOptions = {}): StreamTransport {
  return new StreamTransport(options);
}
