// The plainest real exec primitive there is — a local process started from an argv — for driving
// core's generic ExecEnvironment (what exec-API backends such as docker and ssh build on) without
// any service.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import { Readable, Writable } from "node:stream";
import type { StartExec } from "@codecall/core/backend-kit";

export const startLocalExec: StartExec = async ({ argv }) => {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  await once(child, "spawn");
  child.stdin.on("error", () => {});
  return {
    stdin: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>,
    exit: new Promise((resolve) =>
      child.once("close", (code, signal) => resolve(signal ? { exitCode: 128 + constants.signals[signal], signal } : { exitCode: code ?? 1 })),
    ),
    close: () => {
      child.stdout.destroy();
      child.stderr.destroy();
    },
  };
};
