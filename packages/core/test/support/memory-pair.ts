/**
 * An in-memory Environment and Transport linked by one wire, for testing `executeCode` without a
 * process or a socket: the guest is a JavaScript function, its tool calls reach the run's
 * dispatcher over a linked pair of in-memory endpoints.
 */
import { MemoryEnvironment, type MemoryEnvironmentOptions } from "./memory-environment.js";
import type { Guest } from "./memory-guest.js";
import { MemoryTransport, type MemoryTransportOptions } from "./memory-transport.js";
import { MemoryNetwork } from "./memory-wire.js";

export interface MemoryPair {
  environment: MemoryEnvironment;
  /** A transport with the default id ("memory"). */
  transport: MemoryTransport;
  /** Another transport on the same wire (a failing one, a fallback). */
  createTransport(options?: MemoryTransportOptions): MemoryTransport;
  /**
   * What a run left behind, one line each: files, run dirs, listeners, open sessions, processes
   * still running. Empty when everything was cleaned up.
   */
  leftovers(): string[];
}

export function createMemoryPair(guest: Guest, options: MemoryEnvironmentOptions = {}): MemoryPair {
  const network = new MemoryNetwork();
  const environment = new MemoryEnvironment(network, guest, options);
  const transports: MemoryTransport[] = [];
  const createTransport = (transportOptions?: MemoryTransportOptions) => {
    const transport = new MemoryTransport(network, transportOptions);
    transports.push(transport);
    return transport;
  };
  return {
    environment,
    transport: createTransport(),
    createTransport,
    leftovers: () => [
      ...[...environment.files.keys()].map((path) => `file ${path}`),
      ...[...environment.dirs].map((dir) => `dir ${dir}`),
      ...(network.listening > 0 ? [`${network.listening} listener(s)`] : []),
      ...transports.flatMap((transport) => transport.sessions.filter((session) => !session.closed).map(() => `open ${transport.id} session`)),
      ...environment.spawned.filter((spawned) => !spawned.process.ended).map((spawned) => `running ${spawned.command.slice(0, 20)}`),
    ],
  };
}
