/**
 * Random identifiers from the platform's CSPRNG: Web Crypto (Node, Deno, Bun, browsers alike), or,
 * where the runtime has `node:fs` loaded anyway, the kernel's generator read from /dev/urandom. On
 * Node the first use of Web Crypto loads ~2 ms of its internals, a sizeable part of a short run's
 * set-up in a fresh process (every `codecall run`); the file costs an open and a read.
 */

/** The subset of `node:fs` read here. */
interface SyncFileReads {
  openSync(path: string, flags: string): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
}

/** `node:fs` where the runtime offers built-in modules without an import (Node ≥ 20.16, Deno, Bun). */
function builtinFs(): SyncFileReads | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return runtime?.getBuiltinModule?.("node:fs") as SyncFileReads | undefined;
}

/** Fills `buffer` from /dev/urandom; false where that cannot be read (no such device, no file descriptor left). */
function fillFromDevice(buffer: Uint8Array): boolean {
  const fs = builtinFs();
  if (fs === undefined) return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync("/dev/urandom", "r");
    for (let filled = 0; filled < buffer.length;) {
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read <= 0) return false;
      filled += read;
    }
    return true;
  } catch {
    return false;
  } finally {
    try {
      if (fd !== undefined) fs.closeSync(fd);
    } catch {
      // Closed or not, the bytes read are good.
    }
  }
}

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  if (!fillFromDevice(buffer)) globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A short id for a run, safe in file names. */
export function newRunId(): string {
  return randomHex(8);
}

/** A per-run secret (256 bits). */
export function newRunToken(): string {
  return randomHex(32);
}
