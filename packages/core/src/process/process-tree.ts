/**
 * A command's process tree on the host, for backends that start host processes (local, the
 * apptainer CLI): signalled as its process group, plus — on Linux, by reading /proc — the
 * processes that left the group (a group kill misses them): descendants by parent pid (`setsid`,
 * `setpgid`), and processes whose environment carries the command's tree tag, which also finds a
 * daemon that double-forked and now belongs to init. Runtime-neutral: the runtime lends its
 * signals and file reads ({@link ProcessHost}); where there is no /proc, the group is all there is.
 */
import { TREE_TAG_VARIABLE } from "../remote/remote-command.js";

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
  /** True where `/proc` is Linux's process table; elsewhere only process groups are signalled. */
  procfs: boolean;
  /** Signal names to numbers (an exit by signal n is reported as 128 + n). */
  signalNumbers: Readonly<Partial<Record<string, number>>>;
}

/**
 * Pids of the tree of `rootPid` (not `rootPid` itself): its descendants, then processes tagged
 * `tag`. Without `rootPid` (the root has exited and its pid may be reused), only the tagged ones.
 */
export async function findProcessTree(host: ProcessHost, rootPid: number | undefined, tag: string): Promise<number[]> {
  if (!host.procfs) return [];
  let entries: string[];
  try {
    entries = await host.readdir("/proc");
  } catch {
    return [];
  }
  const childrenOf = new Map<number, number[]>();
  const tagged: number[] = [];
  const marker = `${TREE_TAG_VARIABLE}=${tag}\0`;
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const pid = Number(entry);
        const [parent, environ] = await Promise.all([
          rootPid === undefined ? undefined : parentPid(host, pid),
          host.readFile(`/proc/${pid}/environ`, "latin1").catch(() => ""),
        ]);
        if (pid !== rootPid && (environ.startsWith(marker) || environ.includes(`\0${marker}`))) tagged.push(pid);
        if (parent === undefined) return;
        const siblings = childrenOf.get(parent);
        if (siblings) siblings.push(pid);
        else childrenOf.set(parent, [pid]);
      }),
  );
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

async function parentPid(host: ProcessHost, pid: number): Promise<number | undefined> {
  try {
    const stat = await host.readFile(`/proc/${pid}/stat`, "latin1");
    // Format: "pid (comm) state ppid ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined; // The process ended while we looked.
  }
}
