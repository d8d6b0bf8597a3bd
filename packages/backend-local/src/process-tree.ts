/**
 * Finds every descendant of a process on Linux by reading /proc, so a kill also reaches children
 * that left the process group (`setsid`, `setpgid`) — they would escape a group kill. Elsewhere
 * (or when /proc is unreadable) it finds nothing and the group kill is all there is.
 */
import { readdir, readFile } from "node:fs/promises";

/** Pids of all descendants of `rootPid` (not `rootPid` itself), children before grandchildren. */
export async function findDescendants(rootPid: number): Promise<number[]> {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [];
  }
  const childrenOf = new Map<number, number[]>();
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const parent = await parentPid(Number(entry));
        if (parent === undefined) return;
        const siblings = childrenOf.get(parent);
        if (siblings) siblings.push(Number(entry));
        else childrenOf.set(parent, [Number(entry)]);
      }),
  );
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of childrenOf.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
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
