/**
 * A command's process tree on the host, for backends that start host processes (local, the
 * apptainer CLI): signalled as its process group, plus — on Linux, by reading /proc — the
 * processes that left the group (a group kill misses them): descendants by parent pid (`setsid`,
 * `setpgid`), and processes whose environment carries the command's tree tag, which also finds a
 * daemon that double-forked and now belongs to init. Runtime-neutral: the runtime lends its
 * signals and file reads ({@link ProcessHost}); where there is no /proc, the group is all there is.
 */
import { TREE_TAG_VARIABLE } from "./tree-tag.js";
import { readProcessTable } from "./process-table.js";

/** The signals a tree is ended with. */
export type TreeSignal = "SIGTERM" | "SIGKILL";

/**
 * What the runtime lends: Node's `process.kill`, `fs/promises` and `os.constants.signals` fit as
 * they are (`{ kill: (pid, signal) => process.kill(pid, signal), readdir, readFile, procfs:
 * process.platform === "linux", signalNumbers: constants.signals }`).
 */
export interface ProcessHost {
  /** Sends `signal` to `pid` (a negative pid: that process group; 0: only checks it exists); throws when there is none. */
  kill(pid: number, signal: TreeSignal | 0): unknown;
  /** The names in a directory (for `/proc`). */
  readdir(path: string): Promise<string[]>;
  /** A file as latin1 text (for `/proc/PID/stat` and `/proc/PID/environ`). */
  readFile(path: string, encoding: "latin1"): Promise<string>;
  /**
   * Optional: the same, at once (throws where `readFile` rejects). Where the runtime lends it, a
   * sweep reads `/proc` in short synchronous batches, yielding between them: a third of the time
   * and CPU of as many asynchronous reads of small files, each a trip through a thread pool.
   */
  readFileSync?(path: string, encoding: "latin1"): string;
  /** True where `/proc` is Linux's process table; elsewhere only process groups are signalled. */
  procfs: boolean;
  /** Signal names to numbers (an exit by signal n is reported as 128 + n). */
  signalNumbers: Readonly<Partial<Record<string, number>>>;
}

/**
 * Pids of the tree of `rootPid` (not `rootPid` itself): its descendants, then processes tagged
 * `tag`. Without `rootPid` (the root has exited and its pid may be reused), only the tagged ones.
 * The process table is read once for all the sweeps asked for at the same time (see process-table.ts).
 */
export async function findProcessTree(host: ProcessHost, rootPid: number | undefined, tag: string): Promise<number[]> {
  if (!host.procfs) return [];
  const table = await readProcessTable(host, rootPid !== undefined);
  const childrenOf = new Map<number, number[]>();
  const tagged: number[] = [];
  const marker = `${TREE_TAG_VARIABLE}=${tag}\0`;
  for (const { pid, parent, environ } of table) {
    if (pid !== rootPid && (environ.startsWith(marker) || environ.includes(`\0${marker}`))) tagged.push(pid);
    if (rootPid === undefined || parent === undefined) continue;
    const siblings = childrenOf.get(parent);
    if (siblings) siblings.push(pid);
    else childrenOf.set(parent, [pid]);
  }
  const found: number[] = [];
  const queue = rootPid === undefined ? [] : [rootPid];
  while (queue.length > 0) {
    for (const child of childrenOf.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return [...new Set([...found, ...tagged])];
}

/** Sends `signal` to a process group and to single pids, ignoring the ones already gone. */
export function signalProcesses(host: ProcessHost, processGroup: number, pids: readonly number[], signal: TreeSignal): void {
  for (const target of [-processGroup, ...pids]) {
    try {
      host.kill(target, signal);
    } catch {
      // ESRCH: nothing left there. EPERM cannot happen for our own children.
    }
  }
}

/** True while any process of the group is alive. */
export function groupAlive(host: ProcessHost, processGroup: number): boolean {
  try {
    host.kill(-processGroup, 0);
    return true;
  } catch {
    return false;
  }
}
