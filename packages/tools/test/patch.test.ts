import { readFile, writeFile } from "node:fs/promises";
import { CodecallError } from "@codecall/core";
import { describe, expect, it } from "vitest";
import { createPatchTool, patchTool } from "../src/index.js";
import { useWorkspace } from "./support.js";

const SOURCE = `def greet(name):
    print("hello", name)


def main():
    greet("world")
    greet("again")
`;

describe("patch", () => {
  const ws = useWorkspace();

  it("replaces a unique occurrence", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    const result = await patchTool.execute({ path: "app.py", old_string: 'print("hello", name)', new_string: 'print("hi", name)' }, ws.context);
    expect(result).toEqual({ path: "app.py", replacements: 1 });
    expect(await ws.text("app.py")).toBe(SOURCE.replace('print("hello", name)', 'print("hi", name)'));
  });

  it("replaces a multi-line block", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    await patchTool.execute(
      { path: "app.py", old_string: 'def main():\n    greet("world")\n', new_string: 'def main() -> None:\n    """Entry."""\n    greet("world")\n' },
      ws.context,
    );
    expect(await ws.text("app.py")).toContain('def main() -> None:\n    """Entry."""\n    greet("world")\n    greet("again")\n');
  });

  it("refuses an ambiguous old_string and leaves the file alone", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    await expect(patchTool.execute({ path: "app.py", old_string: "greet(", new_string: "welcome(" }, ws.context)).rejects.toThrow(
      /^old_string appears 3 times in app\.py; add surrounding context to make it unique, or set replace_all/,
    );
    expect(await ws.text("app.py")).toBe(SOURCE);
  });

  it("replaces every occurrence with replace_all", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    const result = await patchTool.execute({ path: "app.py", old_string: "greet(", new_string: "welcome(", replace_all: true }, ws.context);
    expect(result.replacements).toBe(3);
    expect(await ws.text("app.py")).toBe(SOURCE.replaceAll("greet(", "welcome("));
  });

  it("replace_all with a single occurrence reports 1", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    expect(await patchTool.execute({ path: "app.py", old_string: "main", new_string: "run", replace_all: true }, ws.context)).toEqual({
      path: "app.py",
      replacements: 1,
    });
  });

  it("reports an old_string that is not in the file", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    await expect(patchTool.execute({ path: "app.py", old_string: "goodbye", new_string: "x" }, ws.context)).rejects.toThrow(
      /^old_string not found in app\.py\. Read the file again/,
    );
    expect(await ws.text("app.py")).toBe(SOURCE);
  });

  it("hints when old_string carries read_file's line numbers", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    await expect(patchTool.execute({ path: "app.py", old_string: '     6|    greet("world")', new_string: "x" }, ws.context)).rejects.toThrow(
      /line-number prefixes/,
    );
  });

  it("refuses an empty old_string and identical strings", async () => {
    await writeFile(ws.at("app.py"), SOURCE);
    await expect(patchTool.execute({ path: "app.py", old_string: "", new_string: "x" }, ws.context)).rejects.toThrow(
      /old_string must be a non-empty string/,
    );
    await expect(patchTool.execute({ path: "app.py", old_string: "main", new_string: "main" }, ws.context)).rejects.toThrow(/identical/);
    expect(await ws.text("app.py")).toBe(SOURCE);
  });

  it("inserts new_string literally ($& and $1 are not replacement patterns)", async () => {
    await writeFile(ws.at("t.txt"), "price: X\nprice: X\n");
    await patchTool.execute({ path: "t.txt", old_string: "X", new_string: "$& $1 $$", replace_all: true }, ws.context);
    expect(await ws.text("t.txt")).toBe("price: $& $1 $$\nprice: $& $1 $$\n");
  });

  it("deletes text when new_string is empty", async () => {
    await writeFile(ws.at("t.txt"), "keep\ndrop me\nkeep\n");
    await patchTool.execute({ path: "t.txt", old_string: "drop me\n", new_string: "" }, ws.context);
    expect(await ws.text("t.txt")).toBe("keep\nkeep\n");
  });

  it("applies LF old_string/new_string to a CRLF file, keeping CRLF", async () => {
    await writeFile(ws.at("win.txt"), "one\r\ntwo\r\nthree\r\n");
    const result = await patchTool.execute({ path: "win.txt", old_string: "one\ntwo", new_string: "1\n2\n2.5" }, ws.context);
    expect(result.replacements).toBe(1);
    expect(await ws.text("win.txt")).toBe("1\r\n2\r\n2.5\r\nthree\r\n");
  });

  it("keeps a CRLF file CRLF when one line becomes several, or old_string starts with a line break", async () => {
    await writeFile(ws.at("win.txt"), "a = 1\r\nb = 2\r\nc = 3\r\n");
    await patchTool.execute({ path: "win.txt", old_string: "b = 2", new_string: "b = 2\nb2 = 22" }, ws.context);
    expect(await ws.text("win.txt")).toBe("a = 1\r\nb = 2\r\nb2 = 22\r\nc = 3\r\n");
    await patchTool.execute({ path: "win.txt", old_string: "\nc = 3", new_string: "\nc = 3\nd = 4" }, ws.context);
    expect(await ws.text("win.txt")).toBe("a = 1\r\nb = 2\r\nb2 = 22\r\nc = 3\r\nd = 4\r\n");
  });

  it("puts the file back as it was when its write fails part-way", async () => {
    const original = "first line\n" + "x".repeat(3000) + "\n";
    await writeFile(ws.at("big.txt"), original);
    // A write that cuts the file short and then fails, as a full disk does; the next write works.
    let failing = true;
    const environment = new Proxy(ws.environment, {
      get(target, key) {
        if (key === "writeFile") {
          return async (file: string, data: Uint8Array) => {
            if (!failing) return target.writeFile(file, data);
            failing = false;
            await target.writeFile(file, data.subarray(0, 100));
            throw new Error("ENOSPC: no space left on device");
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const patching = patchTool.execute({ path: "big.txt", old_string: "first line", new_string: "FIRST LINE" }, { ...ws.context, environment });
    await expect(patching).rejects.toThrow(/patch could not write big\.txt: ENOSPC: no space left on device; the file was restored as it was\./);
    expect(await ws.text("big.txt")).toBe(original);
  });

  it("keeps a byte-order mark and unicode intact", async () => {
    await writeFile(ws.at("bom.txt"), "\uFEFFnaïve café 🌍\n");
    await patchTool.execute({ path: "bom.txt", old_string: "café", new_string: "bar" }, ws.context);
    const bytes = await readFile(ws.at("bom.txt"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toBe("naïve bar 🌍\n");
  });

  it("reports a missing file as FILE_NOT_FOUND", async () => {
    const error = await patchTool.execute({ path: "ghost.py", old_string: "a", new_string: "b" }, ws.context).catch((e: unknown) => e);
    expect(CodecallError.isInstance(error, "FILE_NOT_FOUND")).toBe(true);
    expect((error as Error).message).toBe("File not found: ghost.py");
  });

  it("refuses binary and non-UTF-8 files without touching them", async () => {
    const binary = new Uint8Array([0x61, 0x00, 0x62]);
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    await writeFile(ws.at("a.bin"), binary);
    await writeFile(ws.at("latin1.txt"), latin1);
    await expect(patchTool.execute({ path: "a.bin", old_string: "a", new_string: "b" }, ws.context)).rejects.toThrow(/binary/);
    await expect(patchTool.execute({ path: "latin1.txt", old_string: "caf", new_string: "x" }, ws.context)).rejects.toThrow(/not valid UTF-8/);
    expect([...(await readFile(ws.at("a.bin")))]).toEqual([...binary]);
    expect([...(await readFile(ws.at("latin1.txt")))]).toEqual([...latin1]);
  });

  it("refuses files over the size limit", async () => {
    await writeFile(ws.at("big.txt"), "z".repeat(5000));
    await expect(
      createPatchTool({ maxFileBytes: 100 }).execute({ path: "big.txt", old_string: "z", new_string: "y", replace_all: true }, ws.context),
    ).rejects.toThrow(/over the 100 bytes limit of patch/);
  });
});
