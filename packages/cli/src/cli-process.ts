/**
 * The `codecall` process from its arguments to its exit: what bin.ts runs, from the command's
 * code-cached build (see program-cache.ts). Kept apart from bin.ts so that the build holding all
 * of the command's code is one script that V8 can cache whole.
 */
import { main } from "./main.js";
import { exitProcess, exitWhenFlushed, reportStrayErrors, reportUnsettledEnd, routeStopSignals } from "./process-lifecycle.js";

/**
 * Runs the command this process was started with and ends the process. `beforeExit` runs once the
 * command is done and its environment closed, before the output is flushed (the loader keeps its
 * compile cache there, off the command's own time).
 */
export async function runCliProcess(beforeExit: () => void = () => {}): Promise<never> {
  const onInterrupt = routeStopSignals();
  reportStrayErrors(process.stderr);
  reportUnsettledEnd(process.stderr);
  const exitCode = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    onInterrupt,
    exit: exitProcess,
  });
  beforeExit();
  // The result is reported and the environment closed: whatever tool modules left running (timers,
  // tools that ignore their abort signal, child processes) must not keep the process alive.
  return exitWhenFlushed(exitCode);
}
