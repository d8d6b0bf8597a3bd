import { readFile, stat, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { readFileTool, writeFileTool } from "../src/index.js";
import { useWorkspace } from "./support.js";

describe("write_file", () => {
  const ws = useWorkspace();

  it("writes a file and reports the bytes written", async () => {
    const result = await writeFileTool.execute({ path: "out.txt", content: "hello\n" }, ws.context);
    expect(result).toEqual({ path: "out.txt", bytes_written: 6 });
    expect(await ws.text("out.txt")).toBe("hello\n");
  });

  it("creates missing parent directories", async () => {
    await writeFileTool.execute({ path: "deep/er/still/file.md", content: "# title\n" }, ws.context);
    expect(await ws.text("deep/er/still/file.md")).toBe("# title\n");
    expect((await stat(ws.at("deep/er"))).isDirectory()).toBe(true);
  });

  it("writes UTF-8 and counts bytes, not characters", async () => {
    const content = "héllo wörld 🌍 — 日本語\n";
    const result = await writeFileTool.execute({ path: "ü/ñ.txt", content }, ws.context);
    expect(result.bytes_written).toBe(Buffer.byteLength(content, "utf8"));
    expect(await readFile(ws.at("ü/ñ.txt"), "utf8")).toBe(content);
    expect((await readFileTool.execute({ path: "ü/ñ.txt" }, ws.context)).content).toBe("     1|héllo wörld 🌍 — 日本語");
  });

  it("replaces an existing file's contents entirely", async () => {
    await writeFile(ws.at("f.txt"), "a much longer original content\n");
    await writeFileTool.execute({ path: "f.txt", content: "short" }, ws.context);
    expect(await ws.text("f.txt")).toBe("short");
  });

  it("writes an empty file", async () => {
    expect(await writeFileTool.execute({ path: "empty", content: "" }, ws.context)).toEqual({ path: "empty", bytes_written: 0 });
    expect((await stat(ws.at("empty"))).size).toBe(0);
  });

  it("writes absolute paths", async () => {
    await writeFileTool.execute({ path: ws.at("abs.txt"), content: "x" }, ws.context);
    expect(await ws.text("abs.txt")).toBe("x");
  });

  it("rejects a NUL byte in the path and a non-string content", async () => {
    await expect(writeFileTool.execute({ path: "a\0b", content: "x" }, ws.context)).rejects.toThrow(/NUL/);
    await expect(writeFileTool.execute({ path: "a", content: 42 as unknown as string }, ws.context)).rejects.toThrow(/content must be a string/);
  });

  it("fails clearly when the path is a directory", async () => {
    await writeFileTool.execute({ path: "dir/x", content: "x" }, ws.context);
    await expect(writeFileTool.execute({ path: "dir", content: "x" }, ws.context)).rejects.toThrow(/dir/);
  });
});
