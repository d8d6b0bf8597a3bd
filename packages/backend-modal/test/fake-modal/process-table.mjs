// What belongs to a fake sandbox among this machine's processes: the descendants of its commands
// (by parent pid, read from /proc) and anything whose environment carries the sandbox's tag.
import { readdirSync, readFileSync } from "node:fs";

/** pid → parent pid, for every process /proc shows. */
function parents() {
  const table = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may hold spaces and parentheses: the fields after the last ")" are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      table.set(Number(entry), ppid);
    } catch {
      // Gone while reading.
    }
  }
  return table;
}

function carriesTag(pid, tag) {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(tag);
  } catch {
    return false;
  }
}

/** The pids of `roots`, their descendants and every process tagged `tag` (an env entry NAME=VALUE). */
export function sandboxProcesses(roots, tag) {
  const table = parents();
  const found = new Set(roots.filter((pid) => table.has(pid)));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of table) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of table.keys()) if (!found.has(pid) && pid !== process.pid && carriesTag(pid, tag)) found.add(pid);
  return [...found];
}
