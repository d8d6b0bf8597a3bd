/** Captures debug lines for a test, without their elapsed times (so they can be compared whole). */
import { setDebugNamespaces, setDebugSink } from "../../src/debug/debug-log.js";

export interface DebugCapture {
  /** `codecall:rpc call 1 echo: ...`, one entry per line written. */
  readonly lines: string[];
  /** Back to the defaults: the console, and the namespaces `CODECALL_DEBUG` selects. */
  stop(): void;
}

export function captureDebug(namespaces: string): DebugCapture {
  const lines: string[] = [];
  setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
  setDebugNamespaces(namespaces);
  return {
    lines,
    stop() {
      setDebugSink();
      setDebugNamespaces(undefined);
    },
  };
}
