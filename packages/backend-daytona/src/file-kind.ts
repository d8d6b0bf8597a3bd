/**
 * What kind of file the toolbox found at a path, from its file info. The daemon reports the mode
 * as Go's `FileMode.String()`: one letter per type bit (`d` directory, `p` FIFO, `S` socket, `D`
 * device, `c` character device, `L` link, `?` irregular; `u`, `g`, `t` are setuid, setgid and
 * sticky, no type), then the nine permission bits — `-rw-r--r--` a regular file, `prw-r--r--` a
 * FIFO, `Dcrw-rw-rw-` /dev/null.
 */
import type { SandboxFileInfo } from "./daytona-sdk.js";

export type FileKind = "file" | "directory" | "fifo" | "socket" | "device" | "other";

/** The kind the info describes; anything unrecognised is `other`. */
export function fileKind(info: SandboxFileInfo): FileKind {
  const letters = info.mode.length > 9 ? info.mode.slice(0, -9) : "?";
  if (info.isDir || letters.includes("d")) return "directory";
  if (letters.includes("p")) return "fifo";
  if (letters.includes("S")) return "socket";
  if (letters.includes("D") || letters.includes("c")) return "device";
  return /^[-ugt]+$/.test(letters) ? "file" : "other";
}
