/**
 * The Python client for transports whose guest end is a Unix socket inside the environment: the
 * uds transport (the host's own socket) and the stream transport (a relay's socket in the
 * environment). Both speak the same NDJSON JSON-RPC on it, so they share one client.
 */
import socketClient from "./python/socket_client.py?raw";

/**
 * Python source of the socket client module (see {@link Transport.guestClient}). It connects to
 * `CODECALL_RPC_SOCKET` and presents `CODECALL_RPC_TOKEN` in its `hello`.
 */
export const PYTHON_SOCKET_CLIENT: string = socketClient;
