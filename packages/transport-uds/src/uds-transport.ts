/**
 * The UDS transport: the host listens on a Unix socket in a private (0700) directory, mode 0600,
 * for the whole run, and serves every connection concurrently — one per guest process. Only for
 * environments that share the host's filesystem (`capabilities.hostSockets`).
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import type { Environment, GuestLanguage, RunContext, Transport, TransportSession } from "@codecall/core";
import { TRANSPORT_SPECIFICATION_VERSION } from "@codecall/core";
import { guestClientFor, socketPathTooLong } from "@codecall/core/plugin-kit";
import { CallFlow, PYTHON_SOCKET_CLIENT } from "@codecall/core/protocol";
import { readConnection } from "./read-connection.js";

export interface UdsTransportOptions {
  /** Where to create the socket's private directory when the run dir's path is too long for a socket. */
  fallbackSocketRoot?: string;
}

export class UdsTransport implements Transport {
  readonly specificationVersion = TRANSPORT_SPECIFICATION_VERSION;
  readonly id = "uds";
  readonly requires = "the local backend (the script must reach a Unix socket on this host)";
  readonly #fallbackRoot: string;

  constructor(options: UdsTransportOptions = {}) {
    this.#fallbackRoot = options.fallbackSocketRoot ?? "/tmp";
  }

  supports(environment: Environment): boolean {
    return environment.capabilities.hostSockets;
  }

  guestClient(language: GuestLanguage): string {
    return guestClientFor(this.id, language, { python: PYTHON_SOCKET_CLIENT });
  }

  async open(_environment: Environment, run: RunContext): Promise<TransportSession> {
    let ownDir: string | undefined;
    let socketPath = path.join(run.runDir, "rpc.sock");
    if (socketPathTooLong(socketPath) !== undefined) {
      ownDir = await mkdtemp(path.join(this.#fallbackRoot, "codecall-rpc-"));
      socketPath = path.join(ownDir, "rpc.sock");
    }
    const server = new UdsServer(run);
    try {
      await server.listen(socketPath);
    } catch (error) {
      // Listening may have succeeded before a later step failed: a server left listening would
      // keep the host process alive for ever.
      await server.close();
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
      throw error;
    }
    return {
      guestEnv: { CODECALL_RPC_SOCKET: socketPath, CODECALL_RPC_TOKEN: run.token },
      close: async () => {
        await server.close();
        await rm(ownDir ?? socketPath, { recursive: true, force: true });
      },
    };
  }
}

/** Serves one run's socket. */
class UdsServer {
  readonly #run: RunContext;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #closing: Promise<void> | undefined;

  constructor(run: RunContext) {
    this.#run = run;
    this.#server = createServer((socket) => this.#serve(socket));
  }

  async listen(socketPath: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(socketPath, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    // The directory is already 0700; 0600 on the socket as well keeps it private if moved.
    await chmod(socketPath, 0o600);
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
    return this.#closing;
  }

  #serve(accepted: Socket): void {
    // The flow is made after the socket (it may answer and end the connection at once, over the
    // run's limit); the socket reads nothing before this returns.
    const socket = readConnection(accepted, (bytes) => {
      flow.push(bytes);
      return flow.wantsInput;
    });
    this.#sockets.add(socket);
    // A guest that stops reading its answers must not grow the host's memory: the flow starts
    // calls only while few run and few answers wait in the socket, and the socket is not read
    // while decoded requests wait to start.
    const flow: CallFlow = new CallFlow({
      rpc: this.#run.dispatcher.createConnection(),
      maxFrameBytes: this.#run.maxFrameBytes,
      send: (answer) => {
        if (!socket.destroyed) socket.write(answer);
      },
      pendingBytes: () => socket.writableLength,
      onWantsInput: () => socket.resume(),
      // Destroyed once the answer is written: a guest that never closes its end must not keep the descriptor.
      end: () => socket.end(() => socket.destroy()),
    });
    socket.on("drain", () => flow.pump());
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      flow.close();
      this.#sockets.delete(socket);
    });
  }
}

/** Creates the transport (the entry point the resolver calls). */
export function createTransport(options: UdsTransportOptions = {}): UdsTransport {
  return new UdsTransport(options);
}
