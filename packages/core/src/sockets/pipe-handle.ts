/**
 * Reading a Node pipe (a child's stdio, a Unix socket's connection) into ONE reused buffer.
 *
 * Why: a Node stream socket allocates a fresh 64 KiB buffer for every read of its pipe (and trims
 * it to what was read), so a flood of output grows the host's memory by tens of MiB the GC frees
 * late, and every small tool-call frame costs an allocation and a copy. A socket made with Node's
 * documented `onread` option reads into a buffer of ours instead. Node offers that option only to
 * sockets it constructs around a handle, so the handle is taken from the stream Node made (core
 * itself imports no Node module: the caller constructs that socket).
 */
/** The parts of Node's libuv pipe handle (`pipe_wrap`'s `Pipe`) that {@link pipeHandle} checks for. */
export interface PipeHandle {
  readStart(): number;
  readStop(): number;
  useUserBuffer(buffer: Uint8Array): void;
}

/**
 * The libuv pipe handle behind a Node stream (a child's stdio, a socket a `net.Server` accepted),
 * or `undefined` when there is none that `onread` can adopt (Deno's and Bun's streams, a future
 * Node that changes its internals): callers then read the stream as it is.
 *
 * `_handle` is private to Node. It is used because Node offers no public way to give such a
 * stream its read buffer, and adopting the handle in a `net.Socket` is what Node itself does to
 * make these sockets; every property used is checked first.
 */
export function pipeHandle(stream: object): PipeHandle | undefined {
  // Deno and Bun imitate Node's handles to differing degrees; adopting one is only known to work on Node.
  if ("Deno" in globalThis || "Bun" in globalThis) return undefined;
  const handle = (stream as { _handle?: unknown })._handle;
  if (typeof handle !== "object" || handle === null || handle.constructor.name !== "Pipe") return undefined;
  const { readStart, readStop, useUserBuffer } = handle as Partial<PipeHandle>;
  const usable = typeof readStart === "function" && typeof readStop === "function" && typeof useUserBuffer === "function";
  return usable ? (handle as PipeHandle) : undefined;
}
