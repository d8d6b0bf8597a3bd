/**
 * Reading Linux's process table (`/proc`) for tree sweeps, shared: every host command that ends
 * sweeps for what it left behind, and a read of every process's environment costs milliseconds
 * (tens on a busy host). Ten commands that end together would read the whole table ten times over,
 * competing for the same file-system threads; here they share reads instead. A read serves every
 * request made before it started: one asked for while a read is under way waits for the next,
 * because its command's orphans may have moved after that read began; all the requests made
 * meanwhile share that next read.
 */
import { readProcessEntry, type ProcessEntry, type ProcReader } from "./process-entry.js";
import type { ProcessHost } from "./process-tree.js";

/** A read in preparation: it starts once the one under way (if any) has ended. */
interface PendingRead {
  withParents: boolean;
  readonly table: Promise<ProcessEntry[]>;
}

/** The reads of one host's table: at most one under way, at most one waiting to start. */
class ProcessTableReader {
  readonly #host: ProcessHost;
  #current: Promise<unknown> = Promise.resolve();
  #pending: PendingRead | undefined;

  constructor(host: ProcessHost) {
    this.#host = host;
  }

  read(withParents: boolean): Promise<ProcessEntry[]> {
    if (this.#pending) {
      this.#pending.withParents ||= withParents;
      return this.#pending.table;
    }
    let start!: () => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    const pending: PendingRead = { withParents, table: started.then(() => readTable(this.#host, pending.withParents)) };
    this.#pending = pending;
    // Starts after the read under way, whatever became of it; from then on, new requests wait for the next.
    void this.#current.then(() => {
      if (this.#pending === pending) this.#pending = undefined;
      start();
    });
    this.#current = pending.table.catch(() => {});
    return pending.table;
  }
}

const readers = new WeakMap<ProcessHost, ProcessTableReader>();

/**
 * Every process in `/proc`, with its environment (and parent, with `withParents`), read after this
 * call — possibly together with other callers'. Empty where the host has no `/proc`.
 */
export function readProcessTable(host: ProcessHost, withParents: boolean): Promise<ProcessEntry[]> {
  let reader = readers.get(host);
  if (!reader) {
    reader = new ProcessTableReader(host);
    readers.set(host, reader);
  }
  return reader.read(withParents);
}

/** Processes read at once between two yields to the event loop, when the host reads synchronously. */
const SYNC_BATCH = 32;

async function readTable(host: ProcessHost, withParents: boolean): Promise<ProcessEntry[]> {
  if (!host.procfs) return [];
  let entries: string[];
  try {
    entries = await host.readdir("/proc");
  } catch {
    return [];
  }
  const pids = entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
  if (host.readFileSync === undefined) {
    const read: ProcReader = (path) => host.readFile(path, "latin1").catch(() => undefined);
    return Promise.all(pids.map((pid) => readProcessEntry(read, pid, withParents)));
  }
  // Synchronous reads in short batches: no batch holds the event loop for long.
  const read: ProcReader = (path) => {
    try {
      return host.readFileSync!(path, "latin1");
    } catch {
      return undefined;
    }
  };
  const table: ProcessEntry[] = [];
  for (let start = 0; start < pids.length; start += SYNC_BATCH) {
    if (start > 0) await nextTask();
    table.push(...(await Promise.all(pids.slice(start, start + SYNC_BATCH).map((pid) => readProcessEntry(read, pid, withParents)))));
  }
  return table;
}

/** Resolves after the event loop has run the I/O and timers that are due (a macrotask, not a microtask). */
function nextTask(): Promise<void> {
  const { setImmediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
  return new Promise((resolve) => (setImmediate ? setImmediate(resolve) : setTimeout(resolve, 0)));
}
