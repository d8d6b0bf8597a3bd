#!/usr/bin/env node
import { main } from "./main.js";

const exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  cwd: process.cwd(),
  onInterrupt(handler) {
    process.on("SIGINT", handler);
    return () => process.off("SIGINT", handler);
  },
  exit: (code) => process.exit(code),
});
// Let stdout drain before leaving (a pipe reader may still be catching up).
process.exitCode = exitCode;
