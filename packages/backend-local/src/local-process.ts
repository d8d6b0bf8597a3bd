/**
 * Starting a host process from Node: spawned detached (a new session, so it leads its own process
 * group) with piped stdio and the tree tag in its env; core's `HostProcess` ends its whole tree on
 * a kill, a timeout or its exit. Node's own APIs are all this file adds.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs";
import { readdir } from "node:fs/promises";
import { constants } from "node:os";
import { newRunId, startHostProcess, TREE_TAG_VARIABLE, type HostProcess, type ProcessHost } from "@codecall/core/plugin-kit";
import { toWebReadable, toWebWritable } from "./node-streams.js";
import { readProcFileSync } from "./read-proc-file.js";

/** Node's signals and process table, as core's HostProcess uses them. */
const NODE_HOST: ProcessHost = {
  kill: (pid, signal) => process.kill(pid, signal),
  readdir,
  // A sweep reads one or two files of every process on the host: at once where it can
  // (`readFileSync`), else with the callback readFile (fs/promises' costs several times more).
  readFile: (path, encoding) => new Promise((resolve, reject) => readFile(path, encoding, (error, text) => (error ? reject(error) : resolve(text)))),
  readFileSync: readProcFileSync,
  procfs: process.platform === "linux",
  signalNumbers: constants.signals,
};

export interface LocalProcessOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The command ends its own tree when it exits (core's `StartHostProcessOptions.treeHeld`). */
  treeHeld?: boolean;
}

/** Starts `file args...` in a process group of its own; rejects (`ENVIRONMENT_FAILED`) when it cannot start. */
export function startLocalProcess(file: string, args: readonly string[], options: LocalProcessOptions): Promise<HostProcess> {
  const tag = newRunId();
  const child = spawn(file, args, {
    cwd: options.cwd,
    // The tree tag lets a kill find the processes that leave the group (see core's process-tree.ts).
    env: { ...options.env, [TREE_TAG_VARIABLE]: tag },
    // A new session: the command leads its own process group, so the tree can be signalled at once.
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  return startHostProcess(
    child,
    { stdin: toWebWritable(child.stdin), stdout: toWebReadable(child.stdout), stderr: toWebReadable(child.stderr) },
    { file, tag, host: NODE_HOST, treeHeld: options.treeHeld ?? false },
  );
}
