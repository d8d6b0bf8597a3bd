/**
 * A Unix socket the agent listens on for the host (`Environment.listenUnix`): every connection a
 * process makes arrives as a "connection" event naming two agent streams, handed on as a
 * `SocketConnection`. The stream transport's relay for a run is one of these.
 */
import type { SocketConnection, SocketListener } from "../environment.js";
import { callSafely } from "../safe-callback.js";
import type { AgentLink, EventHandler } from "./agent-link.js";

export class AgentListener implements SocketListener, EventHandler {
  readonly #link: AgentLink;
  readonly #onConnection: (connection: SocketConnection) => void;
  #id = 0;
  #closing: Promise<void> | undefined;

  private constructor(link: AgentLink, onConnection: (connection: SocketConnection) => void) {
    this.#link = link;
    this.#onConnection = onConnection;
  }

  /** Listens on `path`; rejects as the request does. */
  static async open(link: AgentLink, path: string, onConnection: (connection: SocketConnection) => void): Promise<AgentListener> {
    const listener = new AgentListener(link, onConnection);
    const { id, reply } = link.request("listen", { path }, listener);
    listener.#id = id;
    await reply;
    return listener;
  }

  event(value: Record<string, unknown>): void {
    const ids = value.connection;
    if (!Array.isArray(ids) || ids.length !== 2 || !ids.every((id) => Number.isInteger(id) && id % 2 === 1)) return;
    const [incoming, outgoing] = ids as [number, number];
    callSafely(this.#onConnection, { readable: this.#link.inbound(incoming).readable, writable: this.#link.outbound(outgoing).writable });
  }

  lost(): void {
    // Its connections' streams fail by themselves; nothing is listening any more.
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#link.dropHandler(this.#id);
      await this.#link.request("unlisten", { listener: this.#id }).reply.catch(() => {});
    })();
    return this.#closing;
  }
}
