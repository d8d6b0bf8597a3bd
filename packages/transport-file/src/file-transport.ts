/**
 * The file transport: the guest writes each request as its own file in the run's private RPC dir
 * and the host serves them by polling with `executeOneshot` — no host socket, no shared
 * filesystem, no long-lived exec. It works on every backend, so it comes last in `"auto"`.
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
import { guestClientFor } from "@codecall/core/plugin-kit";
import { FileSession, type FileSessionOptions } from "./file-session.js";
import pythonClient from "./guest/file_client.py?raw";
import { createRpcDirCommand } from "./rpc-dir.js";

export interface FileTransportOptions {
  /** Poll interval while tool calls flow, in ms (default 2). */
  minPollMs?: number;
  /** Longest poll interval, reached while the script makes no calls, in ms (default 100). */
  maxPollMs?: number;
  /**
   * How long a poll that answered every call in flight waits inside the environment for the
   * script's next request, in ms (default 10). A script that calls tools one after another then
   * costs one poll per call instead of two; 0 turns it off.
   */
  lingerMs?: number;
  /**
   * How long closing a session waits for the environment (for the poll in flight, then for the
   * last poll that writes the final answers), in ms (default 5000).
   */
  closeTimeoutMs?: number;
}

export class FileTransport implements Transport {
  readonly specificationVersion = TRANSPORT_SPECIFICATION_VERSION;
  readonly id = "file";
  readonly #options: FileSessionOptions;

  constructor(options: FileTransportOptions = {}) {
    const minPollMs = options.minPollMs ?? 2;
    const maxPollMs = options.maxPollMs ?? 100;
    const lingerMs = options.lingerMs ?? 10;
    const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
    if (!(minPollMs >= 0 && maxPollMs >= minPollMs && lingerMs >= 0 && closeTimeoutMs >= 0)) {
      throw new CodecallError(
        "INVALID_OPTIONS",
        `The file transport needs 0 <= minPollMs <= maxPollMs, lingerMs >= 0 and closeTimeoutMs >= 0, got ${JSON.stringify(options)}`,
      );
    }
    this.#options = { minPollMs, maxPollMs, lingerMs, closeTimeoutMs };
  }

  /** Every environment can run a oneshot command: this is the universal fallback. */
  supports(_environment: Environment): boolean {
    return true;
  }

  guestClient(language: GuestLanguage): string {
    return guestClientFor(this.id, language, { python: pythonClient });
  }

  /** Creates `<runDir>/rpc` (see rpc-dir.ts) and starts polling it. */
  async open(environment: Environment, run: RunContext): Promise<TransportSession> {
    const rpcDir = `${run.runDir}/rpc`;
    const made = await environment.executeOneshot(createRpcDirCommand(rpcDir));
    if (made.exitCode !== 0) {
      throw new CodecallError("TRANSPORT_FAILED", `Could not create the RPC dir ${rpcDir}: ${made.stderr.trim() || `exit code ${made.exitCode}`}`);
    }
    return new FileSession(environment, run, rpcDir, this.#options);
  }
}

/** Creates the transport (the entry point the resolver calls). */
export function createTransport(options: FileTransportOptions = {}): FileTransport {
  return new FileTransport(options);
}
