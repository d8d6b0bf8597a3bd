/**
 * Reading what `storedZip` writes, as the launcher does before a script starts: the memory
 * environment unpacks a run's archive with it, so its guests import the files a real run gets.
 * Reads the local headers in order; stored (uncompressed) entries are all `storedZip` makes.
 */
const LOCAL_HEADER = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;

/** The archive's files, name → bytes. Throws on anything but a stored zip. */
export function unpackStoredZip(archive: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(archive.buffer, archive.byteOffset, archive.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const files = new Map<string, Uint8Array>();
  let offset = 0;
  while (offset + 4 <= archive.length && view.getUint32(offset, true) === LOCAL_HEADER) {
    if (view.getUint16(offset + 8, true) !== 0) throw new Error("the memory environment unpacks only stored zip entries");
    const size = view.getUint32(offset + 18, true);
    const nameLength = view.getUint16(offset + 26, true);
    const dataStart = offset + LOCAL_HEADER_BYTES + nameLength + view.getUint16(offset + 28, true);
    const name = decoder.decode(archive.subarray(offset + LOCAL_HEADER_BYTES, offset + LOCAL_HEADER_BYTES + nameLength));
    files.set(name, archive.subarray(dataStart, dataStart + size));
    offset = dataStart + size;
  }
  if (files.size === 0) throw new Error("not a zip archive");
  return files;
}
