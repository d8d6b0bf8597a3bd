/**
 * Finds every process of a command's tree on Linux by reading /proc, so a kill also reaches the
 * ones that left the process group (a group kill misses them): descendants by parent pid
 * (`setsid`, `setpgid`), and processes whose environment carries the command's tree tag, which
 * also finds a daemon that double-forked and now belongs to init. Elsewhere (or when /proc is
 * unreadable) it finds nothing and the group kill is all there is.
 */
import { readdir, readFile } from "node:fs/promises";
import { TREE_TAG_VARIABLE } from "@codecall/core";

/**
 * Pids of the tree of `rootPid` (not `rootPid` itself): its descendants, then processes tagged
 * `tag`. Without `rootPid` (the root has exited and its pid may be reused), only the tagged ones.
 */
export async function findTree(rootPid: number | undefined, tag: string): Promise<number[]> {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = await readdir("/proc");
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
          rootPid === undefined ? undefined : parentPid(pid),
          readFile(`/proc/${pid}/environ`, "latin1").catch(() => ""),
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

async function parentPid(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Format: "pid (comm) state ppid ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined; // The process ended while we looked.
  }
}

/** Sends `signal` to a process group and to single pids, ignoring the ones already gone. */
export function signalAll(processGroup: number, pids: readonly number[], signal: NodeJS.Signals): void {
  for (const target of [-processGroup, ...pids]) {
    try {
      process.kill(target, signal);
    } catch {
      // ESRCH: nothing left there. EPERM cannot happen for our own children.
    }
  }
}

/** True while any process of the group is alive. */
export function groupAlive(processGroup: number): boolean {
  try {
    process.kill(-processGroup, 0);
    return true;
  } catch {
    return false;
  }
}
