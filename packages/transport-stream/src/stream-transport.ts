/**
 * The stream transport: one long-lived relay process per run inside the environment (`spawn` with
 * open stdio: a docker exec, an ssh channel), listening on a private Unix socket there. The
 * script's processes connect to that socket exactly as they would to the uds transport's; the
 * relay carries their bytes over its stdin/stdout, so a tool call costs one backend round trip
 * instead of a polling cycle.
 */
import {
  CodecallError,
  isCommandNotFound,
  missingInterpreterMessage,
  PYTHON_SOCKET_CLIENT,
  shellQuote,
  type Environment,
  type GuestLanguage,
  type RunContext,
  type Transport,
  type TransportSession,
} from "@codecall/core";
import relaySource from "./guest/relay.py?raw";
import { RelayLink, RelayStartError } from "./relay-link.js";

/**
 * `python -c` program that reads the relay's source from stdin (its byte length on the first line)
 * and runs it; the relay then reads its frames from the same buffered stdin.
 */
const RELAY_BOOTSTRAP = 'import sys; n = int(sys.stdin.buffer.readline()); exec(compile(sys.stdin.buffer.read(n), "codecall-relay.py", "exec"))';

/** The relay, the script, and one tool command. */
const MIN_CONCURRENT_EXECS = 3;

/** sun_path holds 108 bytes on Linux and 104 on macOS; stay under both. */
const MAX_SOCKET_PATH_BYTES = 100;

export interface StreamTransportOptions {
  /** How long the relay may take to start listening before `open()` fails (default 15 s). */
  startTimeoutMs?: number;
  /** After the run, how long the relay gets to exit on its own before it is killed (default 2 s). */
  closeGraceMs?: number;
}

export class StreamTransport implements Transport {
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
    if (language !== "python") throw new Error(`The stream transport has no ${String(language)} client`);
    return PYTHON_SOCKET_CLIENT;
  }

  async open(environment: Environment, run: RunContext): Promise<TransportSession> {
    const socketPath = `${run.runDir}/rpc.sock`;
    const pathBytes = new TextEncoder().encode(socketPath).length;
    if (pathBytes > MAX_SOCKET_PATH_BYTES) {
      throw new CodecallError(
        "TRANSPORT_FAILED",
        `the run dir ${run.runDir} is too long for a Unix socket path (${pathBytes} of at most ${MAX_SOCKET_PATH_BYTES} bytes); give the environment a shorter temp dir`,
      );
    }
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
    return {
      guestEnv: { CODECALL_RPC_SOCKET: socketPath, CODECALL_RPC_TOKEN: run.token },
      close: () => link.close(this.#closeGraceMs),
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
