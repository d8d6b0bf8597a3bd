import { describe, expect, it } from "vitest";
import { findProcessTree, type ProcessHost } from "../src/process/process-tree.js";
import { TREE_TAG_VARIABLE } from "../src/process/tree-tag.js";

interface FakeProcess {
  parent: number;
  env: Record<string, string>;
  /** Default "prog" (a user process); "" for a kernel thread or a zombie. */
  cmdline?: string;
  /** `/proc/PID/stat`'s state (default S) and flags (default those of a user process). */
  state?: string;
  flags?: number;
  /** Reads of its environment and command line that still show them empty: an exec under way. */
  execReads?: number;
  /** Its environment cannot be read (another user's process). */
  unreadable?: boolean;
}

/**
 * A process table as a runtime lends it (`/proc`), changed by the test while reads are under way.
 * Each read of the table (a `readdir` of /proc) is counted, and its file reads take a little while,
 * so that sweeps asked for at the same time overlap.
 */
function fakeProcfs(initial: Record<number, FakeProcess>, options: { sync?: boolean } = {}) {
  const table = new Map(Object.entries(initial).map(([pid, process]) => [Number(pid), process]));
  const readNow = (path: string): string => {
    const [, pid, file] = /^\/proc\/(\d+)\/(\w+)$/.exec(path) ?? [];
    const process = table.get(Number(pid));
    if (!process) throw new Error(`ENOENT: ${path}`);
    host.files.push(path);
    if (file === "environ" && process.unreadable) throw new Error(`EACCES: ${path}`);
    if (file === "stat") return `${pid} (some (odd) name) ${process.state ?? "S"} ${process.parent} 1 1 0 -1 ${process.flags ?? 0x400000} 0`;
    if (process.execReads) {
      process.execReads -= 1;
      return "";
    }
    if (file === "cmdline") return process.cmdline ?? "prog\0";
    return Object.entries(process.env)
      .map(([name, value]) => `${name}=${value}\0`)
      .join("");
  };
  const host = {
    reads: 0,
    /** Each file read, by path. */
    files: [] as string[],
    procfs: true,
    signalNumbers: {},
    kill: () => {},
    readdir: async (path: string) => {
      expect(path).toBe("/proc");
      host.reads += 1;
      return ["self", "cpuinfo", ...[...table.keys()].map(String)];
    },
    readFile: async (path: string) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return readNow(path);
    },
    ...(options.sync ? { readFileSync: (path: string) => readNow(path) } : {}),
  } satisfies ProcessHost & { reads: number; files: string[] };
  return { host, table };
}

const tagged = (tag: string, parent = 1): FakeProcess => ({ parent, env: { PATH: "/bin", [TREE_TAG_VARIABLE]: tag } });

describe("findProcessTree", () => {
  it("finds the tagged processes, and the descendants of the root by parent pid", async () => {
    const { host } = fakeProcfs({
      1: { parent: 0, env: {} },
      10: { parent: 1, env: { HOME: "/root" } },
      11: { parent: 10, env: {} },
      12: { parent: 11, env: {} },
      20: tagged("run-a"),
      21: tagged("run-b"),
    });
    expect(await findProcessTree(host, undefined, "run-a")).toEqual([20]);
    expect((await findProcessTree(host, 10, "run-b")).sort()).toEqual([11, 12, 21]);
    expect(await findProcessTree(host, undefined, "run-c")).toEqual([]);
  });

  it("reads the table once for the sweeps asked for together, and finds each its own", async () => {
    const processes: Record<number, FakeProcess> = {};
    for (let run = 0; run < 10; run += 1) processes[100 + run] = tagged(`run-${run}`);
    const { host } = fakeProcfs(processes);
    const found = await Promise.all(Array.from({ length: 10 }, (_, run) => findProcessTree(host, undefined, `run-${run}`)));
    expect(found).toEqual(Array.from({ length: 10 }, (_, run) => [100 + run]));
    expect(host.reads).toBe(1);
  });

  it("gives a sweep asked for during a read a later read, shared by all that asked meanwhile", async () => {
    const { host, table } = fakeProcfs({ 5: tagged("early") });
    const first = findProcessTree(host, undefined, "late");
    // The first read is under way: a process tagged "late" appears (an orphan of a command that
    // has just ended) and two more sweeps are asked for. The first read may have missed it; the
    // later sweeps must not.
    await new Promise((resolve) => setTimeout(resolve, 1));
    table.set(6, tagged("late"));
    const [second, third] = await Promise.all([findProcessTree(host, undefined, "late"), findProcessTree(host, 5, "late")]);
    expect(second).toEqual([6]);
    expect(third).toEqual([6]);
    await first;
    expect(host.reads).toBe(2);
  });

  it("reads parents for a read shared with a sweep that needs them, and survives a failed read", async () => {
    const { host } = fakeProcfs({ 7: { parent: 3, env: {} }, 8: tagged("t") });
    let failing = true;
    const readdir = host.readdir;
    host.readdir = async (path) => {
      if (failing) {
        failing = false;
        host.reads += 1;
        throw new Error("EACCES");
      }
      return readdir(path);
    };
    expect(await findProcessTree(host, undefined, "t")).toEqual([]);
    const [tagOnly, withParents] = await Promise.all([findProcessTree(host, undefined, "t"), findProcessTree(host, 3, "t")]);
    expect(tagOnly).toEqual([8]);
    expect(withParents.sort()).toEqual([7, 8]);
    expect(host.reads).toBe(2);
  });

  it("reads an empty environment again while its process is exec'ing, and no other empty one", async () => {
    const { host } = fakeProcfs({
      30: { ...tagged("t"), execReads: 4 },
      31: { parent: 2, env: {}, cmdline: "", flags: 0x00200000 }, // a kernel thread
      32: { parent: 1, env: {}, cmdline: "", state: "Z" }, // a zombie
      33: { parent: 1, env: {} }, // env -i: a command line, no environment
      34: { parent: 1, env: {}, unreadable: true }, // another user's
    });
    expect(await findProcessTree(host, undefined, "t")).toEqual([30]);
    const readsOf = (pid: number) => host.files.filter((path) => path.startsWith(`/proc/${pid}/`)).map((path) => path.split("/")[3]);
    expect(readsOf(31)).toEqual(["environ", "stat"]);
    expect(readsOf(32)).toEqual(["environ", "stat"]);
    expect(readsOf(33)).toEqual(["environ", "stat", "cmdline", "environ"]);
    expect(readsOf(34)).toEqual(["environ"]);
  });

  it("reads at once where the host can, in batches that let other work in between", async () => {
    const processes: Record<number, FakeProcess> = {};
    for (let pid = 1000; pid < 1100; pid += 1) processes[pid] = { parent: 1, env: { HOME: "/root" } };
    processes[1100] = { parent: 1000, env: {} };
    processes[1101] = { ...tagged("t"), execReads: 2 };
    const { host } = fakeProcfs(processes, { sync: true });
    const order: string[] = [];
    const sweep = findProcessTree(host, 1000, "t").then((found) => {
      order.push("sweep");
      return found;
    });
    setImmediate(() => order.push("other work"));
    expect((await sweep).sort()).toEqual([1100, 1101]);
    expect(order).toEqual(["other work", "sweep"]);
  });

  it("reads nothing where the host has no /proc", async () => {
    const { host } = fakeProcfs({ 9: tagged("t") });
    const noProcfs = { ...host, procfs: false };
    expect(await findProcessTree(noProcfs, 1, "t")).toEqual([]);
    expect(host.reads).toBe(0);
  });
});
