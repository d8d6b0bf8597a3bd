/** @codecall/transport-file — JSON-RPC as request/response files, served with executeOneshot: works on every backend. */
export { createTransport, FileTransport, type FileTransportOptions } from "./file-transport.js";
