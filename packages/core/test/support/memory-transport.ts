/**
 * A transport over the in-memory wire: it listens on a {@link MemoryNetwork} and serves every
 * guest connection with the run's dispatcher through `CallFlow`, as the socket transports do. Its
 * guest client is one line naming the variable it connects by, so a guest can tell whether the
 * module it imports carries the client of the transport that serves the run.
 */
import type { Environment } from "../../src/environment.js";
import { CallFlow } from "../../src/protocol/call-flow.js";
import type { GuestLanguage, RunContext, Transport, TransportSession } from "../../src/transport.js";
import type { MemoryEndpoint, MemoryNetwork } from "./memory-wire.js";

export interface MemoryTransportOptions {
  /** Default "memory". */
  id?: string;
  /** `open()` rejects with this (a relay that cannot start, a server that cannot listen). */
  openError?: Error;
  /** The session's `close()` rejects with this, after releasing what it held. */
  closeError?: Error;
  /** Default true. */
  supports?: boolean;
}

/** What a session did, for tests to check the run cleaned up. */
export interface SessionRecord {
  runDir: string;
  address: string;
  closed: boolean;
}

/** The client source of transport `id`: the variable it reads its address from. */
export function memoryClientSource(id: string): string {
  return `# in-memory client: connects to $${addressVariable(id)}\n`;
}

/** The guest env variable that holds transport `id`'s address. */
export function addressVariable(id: string): string {
  return `CODECALL_MEMORY_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

export class MemoryTransport implements Transport {
  readonly specificationVersion = "v1";
  readonly id: string;
  readonly #network: MemoryNetwork;
  readonly #options: MemoryTransportOptions;
  /** Every `open()` call, failed ones included. */
  opens = 0;
  readonly sessions: SessionRecord[] = [];

  constructor(network: MemoryNetwork, options: MemoryTransportOptions = {}) {
    this.#network = network;
    this.#options = options;
    this.id = options.id ?? "memory";
  }

  supports(_environment: Environment): boolean {
    return this.#options.supports ?? true;
  }

  guestClient(language: GuestLanguage): string {
    if (language !== "python") throw new Error(`The ${this.id} transport has no ${String(language)} client`);
    return memoryClientSource(this.id);
  }

  async open(_environment: Environment, run: RunContext): Promise<TransportSession> {
    this.opens += 1;
    // Opening takes a turn of the event loop, as listening on a socket does.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.#options.openError) throw this.#options.openError;
    const connections = new Set<MemoryEndpoint>();
    const listener = this.#network.listen((endpoint) => {
      connections.add(endpoint);
      const flow = serve(endpoint, run);
      endpoint.onClose = () => {
        flow.close();
        connections.delete(endpoint);
      };
    });
    const record: SessionRecord = { runDir: run.runDir, address: listener.address, closed: false };
    this.sessions.push(record);
    return {
      guestEnv: { [addressVariable(this.id)]: listener.address, CODECALL_RPC_TOKEN: run.token },
      close: async () => {
        listener.close();
        for (const endpoint of connections) endpoint.close();
        record.closed = true;
        if (this.#options.closeError) throw this.#options.closeError;
      },
    };
  }
}

/** Answers the connection's frames with the run's dispatcher. */
function serve(endpoint: MemoryEndpoint, run: RunContext): CallFlow {
  const flow = new CallFlow({
    rpc: run.dispatcher.createConnection(),
    maxFrameBytes: run.maxFrameBytes,
    send: (answer) => endpoint.send(new TextEncoder().encode(answer)),
    // Delivered at once: nothing waits unread in memory.
    pendingBytes: () => 0,
    onWantsInput: () => {},
    end: () => endpoint.close(),
  });
  endpoint.onData = (chunk) => flow.push(chunk);
  return flow;
}
