/**
 * The wire between an in-memory guest and an in-memory transport: a linked pair of byte endpoints
 * (what a socket is to two processes), and a network where a transport listens at an address and a
 * guest connects to it (what a socket path is). No process, no socket, no file.
 */

/** One side of a connection. Bytes sent arrive at the other side, in order, on a later microtask. */
export interface MemoryEndpoint {
  send(chunk: Uint8Array): void;
  /** Set by the owner of this side before the first chunk can arrive. */
  onData: (chunk: Uint8Array) => void;
  /** Called once when either side closes. */
  onClose: () => void;
  /** Closes both sides; what was sent before still arrives first. Idempotent. */
  close(): void;
  readonly closed: boolean;
}

/** Two endpoints, each delivering to the other (the MCP SDK's `InMemoryTransport.createLinkedPair`, for bytes). */
export function createLinkedPair(): [MemoryEndpoint, MemoryEndpoint] {
  const state = { closed: false };
  const left = new LinkedEndpoint(state);
  const right = new LinkedEndpoint(state);
  left.peer = right;
  right.peer = left;
  return [left, right];
}

class LinkedEndpoint implements MemoryEndpoint {
  onData: (chunk: Uint8Array) => void = () => {};
  onClose: () => void = () => {};
  peer!: LinkedEndpoint;
  readonly #state: { closed: boolean };

  constructor(state: { closed: boolean }) {
    this.#state = state;
  }

  get closed(): boolean {
    return this.#state.closed;
  }

  send(chunk: Uint8Array): void {
    if (this.#state.closed) return;
    // A copy, as a socket would deliver: the sender may reuse its buffer.
    const copy = chunk.slice();
    queueMicrotask(() => this.peer.onData(copy));
  }

  close(): void {
    if (this.#state.closed) return;
    this.#state.closed = true;
    queueMicrotask(() => {
      this.onClose();
      this.peer.onClose();
    });
  }
}

/** Addresses where transports listen; a guest's connect reaches the listener or fails. */
export class MemoryNetwork {
  readonly #listeners = new Map<string, (endpoint: MemoryEndpoint) => void>();
  #next = 0;

  /** Listens at a new address; `accept` gets the host side of every connection. */
  listen(accept: (endpoint: MemoryEndpoint) => void): { address: string; close(): void } {
    this.#next += 1;
    const address = `memory://listener-${this.#next}`;
    this.#listeners.set(address, accept);
    return { address, close: () => this.#listeners.delete(address) };
  }

  /** The guest side of a new connection; throws like a refused connect when nobody listens. */
  connect(address: string): MemoryEndpoint {
    const accept = this.#listeners.get(address);
    if (!accept) throw new Error(`ConnectionRefusedError: nothing listens at ${address}`);
    const [guest, host] = createLinkedPair();
    accept(host);
    return guest;
  }

  /** Addresses still listened at. */
  get listening(): number {
    return this.#listeners.size;
  }
}
