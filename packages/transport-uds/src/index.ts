/** @codecall/transport-uds — JSON-RPC over a private Unix socket, for the local backend. */
export { createTransport, UdsTransport, type UdsTransportOptions } from "./uds-transport.js";
