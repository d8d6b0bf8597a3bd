/**
 * Notices that stdout lost its reader (`codecall run x.py | head -1`, a closed terminal). Node
 * ignores SIGPIPE, so a shell pipeline's usual way of stopping a writer does not reach us: the
 * write fails instead (EPIPE, EIO), once per write, and the process would go on running the script
 * into nothing. A command watches its stdout with this and stops as if SIGPIPE had ended it.
 */

/**
 * Calls `onClosed` once, the first time a write to `stream` fails. Returns the removal of the
 * watch. (The process keeps a listener of its own that ignores later failures: see
 * process-lifecycle.ts.)
 */
export function watchOutputClosed(stream: NodeJS.WritableStream, onClosed: (error: Error) => void): () => void {
  let closed = false;
  const listener = (error: Error) => {
    if (closed) return;
    closed = true;
    onClosed(error);
  };
  stream.on("error", listener);
  return () => stream.off("error", listener);
}

/**
 * Resolves once every write made to `stream` so far has completed or failed, and a failure has
 * been reported to its "error" listeners: the result's last bytes may still be on their way when
 * the run ends, and whether they arrived decides the exit code.
 */
export function writesSettled(stream: NodeJS.WritableStream): Promise<void> {
  // Write callbacks run in order; a failed write's "error" event follows its callback.
  return new Promise((resolve) => stream.write("", () => setImmediate(resolve)));
}
