/**
 * The file transport: the guest writes each request as its own file in the run's private RPC dir
 * and the host serves them by polling with `executeOneshot` — no host socket, no shared
 * filesystem, no long-lived exec. It works on every backend, so it comes last in `"auto"`.
 */
import {
  CodecallError,
  shellQuote,
  type Environment,
  type GuestLanguage,
  type RunContext,
  type Transport,
  type TransportSession,
} from "@codecall/core";
import { FileSession, type PollPacing } from "./file-session.js";
import pythonClient from "./guest/file_client.py?raw";

export interface FileTransportOptions {
  /** Poll interval while tool calls flow, in ms (default 2). */
  minPollMs?: number;
  /** Longest poll interval, reached while the script makes no calls, in ms (default 100). */
  maxPollMs?: number;
}

/** Directories of the RPC dir; `poll.sh` and the guest client use the same names. */
const RPC_SUBDIRS = ["requests", "claimed", "responses", "guest-tmp", "host-tmp"];

export class FileTransport implements Transport {
  readonly id = "file";
  readonly #pacing: PollPacing;

  constructor(options: FileTransportOptions = {}) {
    const minPollMs = options.minPollMs ?? 2;
    const maxPollMs = options.maxPollMs ?? 100;
    if (!(minPollMs >= 0 && maxPollMs >= minPollMs)) {
      throw new CodecallError("INVALID_OPTIONS", `The file transport needs 0 <= minPollMs <= maxPollMs, got ${minPollMs} and ${maxPollMs}`);
    }
    this.#pacing = { minPollMs, maxPollMs };
  }

  /** Every environment can run a oneshot command: this is the universal fallback. */
  supports(_environment: Environment): boolean {
    return true;
  }

  guestClient(language: GuestLanguage): string {
    if (language !== "python") throw new Error(`The file transport has no ${String(language)} client`);
    return pythonClient;
  }

  /** Creates `<runDir>/rpc` (0700, and it must not exist yet) and starts polling it. */
  async open(environment: Environment, run: RunContext): Promise<TransportSession> {
    const rpcDir = `${run.runDir}/rpc`;
    const made = await environment.executeOneshot(
      `umask 077 && mkdir -m 700 ${shellQuote(rpcDir)} && cd ${shellQuote(rpcDir)} && mkdir -m 700 ${RPC_SUBDIRS.join(" ")}`,
    );
    if (made.exitCode !== 0) {
      throw new CodecallError("TRANSPORT_FAILED", `Could not create the RPC dir ${rpcDir}: ${made.stderr.trim() || `exit code ${made.exitCode}`}`);
    }
    return new FileSession(environment, run, rpcDir, this.#pacing);
  }
}

/** Creates the transport (the entry point the resolver calls). */
export function createTransport(options: FileTransportOptions = {}): FileTransport {
  return new FileTransport(options);
}
