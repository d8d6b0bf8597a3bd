/**
 * How the `codecall` process meets the outside world: the stop signals (Ctrl-C, `kill`, a closed
 * terminal) and its own end. The process ends as soon as the result is reported and cleanup is
 * done: a tools module may leave an interval, a tool that ignores its abort signal, or a child
 * holding a pipe, and none of them may keep a finished run alive.
 */
import { SIGNAL_EXIT_CODES, type StopSignal } from "./exit-codes.js";

const STOP_SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** How long stdout and stderr may take to drain at exit (a reader that stopped reading must not hang us). */
const FLUSH_TIMEOUT_MS = 5_000;

/** The command chose to end the process (see `exitProcess`). */
let exiting = false;

/** Ends the process with `code`: every end the command chooses goes through here. */
export function exitProcess(code: number): never {
  exiting = true;
  process.exit(code);
}

/**
 * Says why the process ends when the command did not choose to: Node ends a process whose event
 * loop has nothing left while the command still awaits — a tools module whose top-level await
 * waits on a promise nothing will settle — with code 13 and no word. It then exits 1, with a line.
 */
export function reportUnsettledEnd(stderr: NodeJS.WritableStream): void {
  process.on("exit", () => {
    if (exiting) return;
    stderr.write(
      "codecall: stopped before finishing: nothing was left to wait for, yet the command was still waiting (a --tools module awaits a promise that nothing will settle?)\n",
    );
    process.exitCode = 1;
  });
}

/**
 * Routes SIGINT, SIGTERM and SIGHUP to the handler `register` installs (the run's clean stop).
 * With no handler installed (before the run starts, after it ended) a signal exits at once, with
 * 128 + its number.
 */
export function routeStopSignals(): (handler: (signal: StopSignal) => void) => () => void {
  let current: ((signal: StopSignal) => void) | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => (current ? current(signal) : exitProcess(SIGNAL_EXIT_CODES[signal])));
  }
  // A closed terminal or pipe fails our writes (EIO, EPIPE); that must not crash the process
  // before it has cleaned up. What cannot be written is lost either way.
  process.stdout.on("error", () => {});
  process.stderr.on("error", () => {});
  return (handler) => {
    current = handler;
    return () => {
      if (current === handler) current = undefined;
    };
  };
}

/**
 * Reports, on stderr, the errors that tools modules leave unhandled — a promise rejected with no
 * handler, a throw inside a timer — instead of letting Node end the process. Such an error belongs
 * to one tool's code: ending the process for it would cut a run short without closing its
 * environment (a container or SSH session left behind), or take a whole MCP server down. The run,
 * or the server, goes on; the tool call involved has its own outcome either way.
 */
export function reportStrayErrors(stderr: NodeJS.WritableStream): void {
  const report = (what: string) => (error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    stderr.write(`codecall: ${what} (ignored): ${text}\n`);
  };
  process.on("unhandledRejection", report("a promise was rejected and nothing handled it"));
  process.on("uncaughtException", report("an error was thrown and nothing caught it"));
}

/** Ends the process with `code` once stdout and stderr have drained (bounded). */
export async function exitWhenFlushed(code: number): Promise<never> {
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) =>
      stream.writableLength === 0 || stream.destroyed ? resolve() : stream.once("drain", resolve).once("error", resolve),
    );
  // A plain timer, not core's `delay`: this module is part of every command, `--version` included,
  // and core is loaded only by the commands that need it.
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS).unref());
  await Promise.race([Promise.all([flushed(process.stdout), flushed(process.stderr)]), timeout]);
  exitProcess(code);
}
