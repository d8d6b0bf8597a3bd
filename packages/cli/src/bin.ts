#!/usr/bin/env node
/**
 * The `codecall` command. Start-up is most of a short run's time (`codecall run` of a script that
 * only prints), so this entry and the dispatcher load no core: they turn on Node's on-disk compile
 * cache, then import only the command asked for (see main.ts).
 */
import module from "node:module";
import { main } from "./main.js";
import { exitProcess, exitWhenFlushed, reportStrayErrors, reportUnsettledEnd, routeStopSignals } from "./process-lifecycle.js";

// Node ≥ 22.1 keeps the compiled code of the modules loaded after this call on disk (in
// NODE_COMPILE_CACHE, or the temp dir), so later runs skip compiling them; NODE_DISABLE_COMPILE_CACHE=1
// turns it off. Node 20 has no such function: there every run compiles.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

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
// The result is reported and the environment closed: whatever tool modules left running (timers,
// tools that ignore their abort signal, child processes) must not keep the process alive.
await exitWhenFlushed(exitCode);
