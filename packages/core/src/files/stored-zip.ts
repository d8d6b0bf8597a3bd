/**
 * A zip archive of uncompressed ("stored") files, built in memory. Several files then cost one
 * write into an environment, and Python imports modules straight from a zip on its path.
 * Deliberately small: no compression, no directories, no zip64 (archives stay far below 4 GiB).
 */
import { CodecallError } from "../errors.js";
import { crc32 } from "./crc32.js";

/** One file of the archive. */
export interface ZipEntry {
  /** Path inside the archive, `/`-separated, e.g. `codecall.py`. */
  name: string;
  /** Contents; a string is stored as UTF-8. */
  data: Uint8Array | string;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;
const END_BYTES = 22;
/** Version 2.0 of the format, the lowest that every reader takes. */
const VERSION = 20;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** 1980-01-01 00:00, the earliest zip date: archives of the same files are the same bytes. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

/** The archive's bytes. Throws `INVALID_OPTIONS` for an empty or repeated name. */
export function storedZip(entries: readonly ZipEntry[]): Uint8Array {
  const encoder = new TextEncoder();
  const seen = new Set<string>();
  const files = entries.map((entry) => {
    if (entry.name === "" || seen.has(entry.name)) {
      throw new CodecallError("INVALID_OPTIONS", `Zip entry names must be non-empty and distinct, got ${JSON.stringify(entry.name)}`);
    }
    seen.add(entry.name);
    const data = typeof entry.data === "string" ? encoder.encode(entry.data) : entry.data;
    return { name: encoder.encode(entry.name), data, crc: crc32(data) };
  });
  const localBytes = files.reduce((sum, file) => sum + LOCAL_HEADER_BYTES + file.name.length + file.data.length, 0);
  const centralBytes = files.reduce((sum, file) => sum + CENTRAL_HEADER_BYTES + file.name.length, 0);
  const archive = new Uint8Array(localBytes + centralBytes + END_BYTES);
  const view = new DataView(archive.buffer);
  let offset = 0;
  const offsets: number[] = [];
  for (const file of files) {
    offsets.push(offset);
    view.setUint32(offset, LOCAL_HEADER, true);
    writeCommonFields(view, offset + 4, file);
    archive.set(file.name, offset + LOCAL_HEADER_BYTES);
    archive.set(file.data, offset + LOCAL_HEADER_BYTES + file.name.length);
    offset += LOCAL_HEADER_BYTES + file.name.length + file.data.length;
  }
  files.forEach((file, index) => {
    view.setUint32(offset, CENTRAL_HEADER, true);
    view.setUint16(offset + 4, VERSION, true); // made by
    writeCommonFields(view, offset + 6, file);
    // Comment length, disk number, internal and external attributes: all zero.
    view.setUint32(offset + 42, offsets[index]!, true);
    archive.set(file.name, offset + CENTRAL_HEADER_BYTES);
    offset += CENTRAL_HEADER_BYTES + file.name.length;
  });
  view.setUint32(offset, END_OF_CENTRAL_DIRECTORY, true);
  view.setUint16(offset + 8, files.length, true); // entries on this disk
  view.setUint16(offset + 10, files.length, true); // entries in all
  view.setUint32(offset + 12, centralBytes, true);
  view.setUint32(offset + 16, localBytes, true); // where the central directory starts
  return archive;
}

/**
 * The fields a local header (from its byte 4) and a central header (from its byte 6) share:
 * version needed, flags, method, time, date, CRC, both sizes, name length, extra length.
 */
function writeCommonFields(view: DataView, at: number, file: { name: Uint8Array; data: Uint8Array; crc: number }): void {
  view.setUint16(at, VERSION, true);
  view.setUint16(at + 2, UTF8_NAMES, true);
  view.setUint16(at + 4, 0, true); // stored, not compressed
  view.setUint16(at + 6, DOS_TIME, true);
  view.setUint16(at + 8, DOS_DATE, true);
  view.setUint32(at + 10, file.crc, true);
  view.setUint32(at + 14, file.data.length, true);
  view.setUint32(at + 18, file.data.length, true);
  view.setUint16(at + 22, file.name.length, true);
  view.setUint16(at + 24, 0, true); // no extra field
}
