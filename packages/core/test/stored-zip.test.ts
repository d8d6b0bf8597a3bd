import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 as zlibCrc32 } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { crc32, portableCrc32 } from "../src/files/crc32.js";
import { storedZip } from "../src/files/stored-zip.js";

const dir = mkdtempSync(join(tmpdir(), "codecall-zip-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What Python's zipfile reads from the archive (it checks each entry's CRC as it reads). */
function readWithPython(archive: Uint8Array): Record<string, unknown> {
  const path = join(dir, "archive.zip");
  writeFileSync(path, archive);
  const script = String.raw`
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    print(json.dumps({
        "bad": archive.testzip(),
        "files": {info.filename: [list(archive.read(info)), info.compress_type, info.date_time[:3]] for info in archive.infolist()},
    }))
`;
  return JSON.parse(execFileSync("python3", ["-B", "-c", script, path], { encoding: "utf8" })) as Record<string, unknown>;
}

describe.each([
  ["crc32 (zlib's where there is one)", crc32],
  ["portableCrc32 (where there is none)", portableCrc32],
])("%s", (_, checksum) => {
  it("gives the checksum zip and gzip use", () => {
    expect(checksum(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    expect(checksum(new Uint8Array())).toBe(0);
    expect(checksum(new Uint8Array([0xff, 0x00, 0x80]))).toBe(0xac616edf);
  });

  it("agrees with zlib at every length around its 8-byte steps, and on a run-sized archive", () => {
    const bytes = new Uint8Array(100_003).map((_, index) => (index * 2_654_435_761) >>> 24);
    for (let length = 0; length <= 40; length += 1)
      expect(checksum(bytes.subarray(0, length)), `${length} bytes`).toBe(zlibCrc32(bytes.subarray(0, length)));
    expect(checksum(bytes.subarray(3))).toBe(zlibCrc32(bytes.subarray(3)));
  });
});

describe("storedZip", () => {
  it("writes an archive Python reads back byte for byte, checksums intact", () => {
    const binary = new Uint8Array(300).map((_, index) => (index * 7) % 256);
    const archive = storedZip([
      { name: "a.py", data: "print('é')\n" },
      { name: "dir/b.bin", data: binary },
      { name: "empty.txt", data: "" },
      { name: "ünïcode.py", data: "x = 1\n" },
    ]);
    expect(readWithPython(archive)).toEqual({
      bad: null,
      files: {
        "a.py": [[...new TextEncoder().encode("print('é')\n")], 0, [1980, 1, 1]],
        "dir/b.bin": [[...binary], 0, [1980, 1, 1]],
        "empty.txt": [[], 0, [1980, 1, 1]],
        "ünïcode.py": [[...new TextEncoder().encode("x = 1\n")], 0, [1980, 1, 1]],
      },
    });
  });

  it("writes the same bytes for the same files", () => {
    const files = [{ name: "a", data: "1" }];
    expect(storedZip(files)).toEqual(storedZip(files));
  });

  it("writes an empty archive", () => {
    expect(readWithPython(storedZip([]))).toEqual({ bad: null, files: {} });
  });

  it.each([
    [[{ name: "", data: "" }]],
    [
      [
        { name: "a", data: "1" },
        { name: "a", data: "2" },
      ],
    ],
  ])("refuses an empty or repeated name", (entries) => {
    expect(() => storedZip(entries)).toThrow(CodecallError);
    expect(() => storedZip(entries)).toThrow(/Zip entry names must be non-empty and distinct/);
  });
});
