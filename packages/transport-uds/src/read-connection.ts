/**
 * How the host reads a guest's connection: into one reused buffer where Node allows (see core's
 * `pipeHandle`; each small tool-call frame then costs no allocation of its own), else as Node made
 * the socket, with `data` events.
 */
import { Socket } from "node:net";
import { pipeHandle } from "@codecall/core/plugin-kit";

/** The most one read of the connection takes. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * The socket to serve `accepted` (a connection a `net.Server` just accepted, not read yet) on: it
 * passes each read's bytes to `onBytes` (valid only during the call), and stops reading when that
 * returns `false`, until `resume()`.
 */
export function readConnection(accepted: Socket, onBytes: (bytes: Uint8Array) => boolean): Socket {
  const handle = pipeHandle(accepted);
  if (handle === undefined) {
    accepted.on("data", (chunk: Buffer) => {
      if (!onBytes(chunk)) accepted.pause();
    });
    return accepted;
  }
  // The accepted socket lets go of the handle without closing it: its destroy then only counts the
  // connection out of the server (whose close would otherwise wait for it for ever).
  (accepted as unknown as { _handle: unknown })._handle = null;
  accepted.destroy();
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  const callback = (length: number): boolean => onBytes(buffer.subarray(0, length));
  return new Socket({ handle, readable: true, writable: true, onread: { buffer, callback } } as ConstructorParameters<typeof Socket>[0]);
}
