#!/usr/bin/env node
import { main } from "./main.js";
import { exitWhenFlushed, routeStopSignals } from "./process-lifecycle.js";

const onInterrupt = routeStopSignals();
const exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  cwd: process.cwd(),
  onInterrupt,
  exit: (code) => process.exit(code),
});
// The result is reported and the environment closed: whatever tool modules left running (timers,
// tools that ignore their abort signal, child processes) must not keep the process alive.
await exitWhenFlushed(exitCode);
