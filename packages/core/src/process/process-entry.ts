/**
 * One process of Linux's `/proc`, read for a tree sweep: its parent and its environment (where the
 * tree tag is). A process caught in the middle of an `execve` shows an empty environment for a
 * moment (between the switch to its new memory and the new environment's copy into it), so a sweep
 * that took that at its word would miss a tagged process just as it starts: a leftover `setsid
 * daemon &` exec'ing when its command ends. An empty environment is therefore read again, briefly,
 * unless the process is one that never has one (a kernel thread, a zombie) or truly has none (a
 * command line but no environment: `env -i`).
 */
import { delay } from "../timers/delay.js";

/** Reads a file of `/proc`: its text, or `undefined` where it cannot be read (the process has ended, or is another user's). */
export type ProcReader = (path: string) => string | undefined | Promise<string | undefined>;

/** Linux's `PF_KTHREAD` in `/proc/PID/stat`'s flags: a kernel thread, which has no environment. */
const PF_KTHREAD = 0x00200000;

/** Pause between reads of an environment still empty during an exec, and the most reads. */
const EXEC_SETTLE_MS = 5;
const EXEC_SETTLE_READS = 10;

/** One process as a table read saw it. */
export interface ProcessEntry {
  pid: number;
  /** Its parent's pid; only when the read was asked for parents (and the process still ran). */
  parent?: number | undefined;
  /** Its environment block (`NAME=value\0...`); empty when it could not be read. */
  environ: string;
}

/** Reads process `pid` (its parent too with `withParents`); empty fields where it has ended. */
export async function readProcessEntry(read: ProcReader, pid: number, withParents: boolean): Promise<ProcessEntry> {
  const [stat, environ] = await Promise.all([withParents ? read(`/proc/${pid}/stat`) : undefined, read(`/proc/${pid}/environ`)]);
  return {
    pid,
    parent: stat === undefined ? undefined : statFields(stat)?.parent,
    // Unreadable (another user's process, or gone) is not empty: nothing to wait for.
    environ: environ === "" ? await settledEnviron(read, pid) : (environ ?? ""),
  };
}

/** The environment of a process whose first read was empty: read again while it is exec'ing. */
async function settledEnviron(read: ProcReader, pid: number): Promise<string> {
  for (let reads = 0; reads < EXEC_SETTLE_READS && (await mayHaveEnviron(read, pid)); reads += 1) {
    // The command line shows once an exec is complete, and the environment with it (the kernel
    // sets both at once): read after it, the environment is final.
    const execDone = (await read(`/proc/${pid}/cmdline`)) !== "";
    const environ = await read(`/proc/${pid}/environ`);
    if (environ === undefined) return "";
    if (environ !== "" || execDone) return environ;
    await delay(EXEC_SETTLE_MS);
  }
  return "";
}

/** False for a process that never has an environment (a kernel thread, a zombie) or has ended. */
async function mayHaveEnviron(read: ProcReader, pid: number): Promise<boolean> {
  const fields = statFields(await read(`/proc/${pid}/stat`));
  return fields !== undefined && fields.state !== "Z" && fields.state !== "X" && (fields.flags & PF_KTHREAD) === 0;
}

/** The fields of `/proc/PID/stat` a sweep uses; `undefined` when it could not be read. */
function statFields(stat: string | undefined): { state: string; parent: number; flags: number } | undefined {
  if (stat === undefined) return undefined;
  // Format: "pid (comm) state ppid pgrp session tty tpgid flags ..."; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const parent = Number(fields[1]);
  if (!Number.isInteger(parent)) return undefined;
  return { state: fields[0]!, parent, flags: Number(fields[6]) || 0 };
}
