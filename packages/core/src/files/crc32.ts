/**
 * CRC-32 (IEEE 802.3, the checksum of zip and gzip): zlib's where the runtime offers it without an
 * import, else computed here (runtime-neutral).
 */

/**
 * Slicing-by-8 lookup tables of the reflected polynomial 0xEDB88320: table `k` (entries `256 k` to
 * `256 k + 255`) holds the CRC of a byte followed by `k` zero bytes, so one step folds in 8 bytes.
 */
const TABLES = (() => {
  const tables = new Int32Array(8 * 256);
  for (let byte = 0; byte < 256; byte += 1) {
    let value = byte;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    tables[byte] = value;
  }
  for (let byte = 0; byte < 256; byte += 1) {
    let value = tables[byte]!;
    for (let table = 1; table < 8; table += 1) {
      value = tables[value & 0xff]! ^ (value >>> 8);
      tables[table * 256 + byte] = value;
    }
  }
  return tables;
})();

/** `node:zlib`'s crc32 (Node ≥ 20.15), looked up on first use; null where there is none. */
let nativeCrc32: ((data: Uint8Array) => number) | null | undefined;

/**
 * The CRC-32 of `data`, as an unsigned 32-bit number. zlib's is native code, ~10× faster than this
 * file's interpreted loop on a run's archive (computed once per run, in a fresh process: cold).
 */
export function crc32(data: Uint8Array): number {
  if (nativeCrc32 === undefined) {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const zlib = runtime?.getBuiltinModule?.("node:zlib") as { crc32?: (data: Uint8Array) => number } | undefined;
    nativeCrc32 = typeof zlib?.crc32 === "function" ? zlib.crc32 : null;
  }
  return nativeCrc32 === null ? portableCrc32(data) : nativeCrc32(data);
}

/** The CRC-32 of `data`, computed here: what runtimes without zlib's use. */
export function portableCrc32(data: Uint8Array): number {
  const t = TABLES;
  let crc = -1;
  let index = 0;
  // Eight bytes a step: this runs once per run, cold, where the interpreter's cost is per step
  // (a run's ~45 KB archive: 1.9 ms a byte at a time, 1.0 ms this way). Indexed reads, not
  // for-of: an iterator step costs several times an indexed read there.
  for (const whole = data.length - (data.length % 8); index < whole; index += 8) {
    const low = crc ^ (data[index]! | (data[index + 1]! << 8) | (data[index + 2]! << 16) | (data[index + 3]! << 24));
    crc =
      t[1792 + (low & 0xff)]! ^
      t[1536 + ((low >>> 8) & 0xff)]! ^
      t[1280 + ((low >>> 16) & 0xff)]! ^
      t[1024 + (low >>> 24)]! ^
      t[768 + data[index + 4]!]! ^
      t[512 + data[index + 5]!]! ^
      t[256 + data[index + 6]!]! ^
      t[data[index + 7]!]!;
  }
  for (; index < data.length; index += 1) crc = t[(crc ^ data[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
