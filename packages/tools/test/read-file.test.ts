import { mkdir, writeFile } from "node:fs/promises";
import { createEnvironment } from "@codecall/backend-local";
import { CodecallError } from "@codecall/core";
import { describe, expect, it } from "vitest";
import { createReadFileTool, readFileTool } from "../src/index.js";
import { contextFor, useWorkspace } from "./support.js";

const numbered = (from: number, lines: string[]) => lines.map((line, i) => `${String(from + i).padStart(6)}|${line}`).join("\n");

describe("read_file", () => {
  const ws = useWorkspace();

  it("returns numbered lines and the file's shape", async () => {
    await writeFile(ws.at("a.txt"), "alpha\nbeta\n\ngamma\n");
    const result = await readFileTool.execute({ path: "a.txt" }, ws.context);
    expect(result).toEqual({
      path: "a.txt",
      content: "     1|alpha\n     2|beta\n     3|\n     4|gamma",
      total_lines: 4,
      start_line: 1,
      end_line: 4,
      truncated: false,
    });
  });

  it("counts a last line without a newline, and an empty file as no lines", async () => {
    await writeFile(ws.at("a.txt"), "one\ntwo");
    await writeFile(ws.at("empty.txt"), "");
    expect(await readFileTool.execute({ path: "a.txt" }, ws.context)).toMatchObject({ content: "     1|one\n     2|two", total_lines: 2 });
    expect(await readFileTool.execute({ path: "empty.txt" }, ws.context)).toMatchObject({
      content: "",
      total_lines: 0,
      start_line: 1,
      end_line: 0,
      truncated: false,
    });
  });

  it("pages with a 1-based offset and a limit", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    await writeFile(ws.at("many.txt"), `${lines.join("\n")}\n`);
    const page = await readFileTool.execute({ path: "many.txt", offset: 5, limit: 3 }, ws.context);
    expect(page).toMatchObject({
      content: numbered(5, ["line 5", "line 6", "line 7"]),
      total_lines: 20,
      start_line: 5,
      end_line: 7,
      truncated: true,
    });
    const last = await readFileTool.execute({ path: "many.txt", offset: 18, limit: 10 }, ws.context);
    expect(last).toMatchObject({ content: numbered(18, ["line 18", "line 19", "line 20"]), end_line: 20, truncated: false });
    const past = await readFileTool.execute({ path: "many.txt", offset: 50 }, ws.context);
    expect(past).toMatchObject({ content: "", total_lines: 20, truncated: false });
  });

  it("defaults to 500 lines", async () => {
    await writeFile(ws.at("long.txt"), Array.from({ length: 600 }, (_, i) => `${i + 1}`).join("\n"));
    const result = await readFileTool.execute({ path: "long.txt" }, ws.context);
    expect(result).toMatchObject({ end_line: 500, total_lines: 600, truncated: true });
    expect(result.content.split("\n")).toHaveLength(500);
    expect(result.content.endsWith("   500|500")).toBe(true);
  });

  it("cuts long lines with a marker", async () => {
    await writeFile(ws.at("wide.txt"), `short\n${"x".repeat(5000)}\nend\n`);
    const result = await readFileTool.execute({ path: "wide.txt" }, ws.context);
    const [, wide, end] = result.content.split("\n");
    expect(wide).toBe(`     2|${"x".repeat(2000)}… [line truncated: 5,000 characters in all]`);
    expect(end).toBe("     3|end");
  });

  it("stops early at the content cap, always making progress", async () => {
    await writeFile(ws.at("a.txt"), Array.from({ length: 50 }, () => "0123456789").join("\n"));
    const tool = createReadFileTool({ maxReadChars: 60 });
    const result = await tool.execute({ path: "a.txt" }, ws.context);
    expect(result).toMatchObject({ start_line: 1, end_line: 3, truncated: true });
    const tiny = createReadFileTool({ maxReadChars: 1 });
    expect(await tiny.execute({ path: "a.txt", offset: 7 }, ws.context)).toMatchObject({ start_line: 7, end_line: 7, truncated: true });
  });

  it("does not show the \\r of CRLF line ends, and reads UTF-8", async () => {
    await writeFile(ws.at("crlf.txt"), "héllo\r\nwörld 🌍\r\n");
    const result = await readFileTool.execute({ path: "crlf.txt" }, ws.context);
    expect(result.content).toBe("     1|héllo\n     2|wörld 🌍");
  });

  it("refuses binary files", async () => {
    await writeFile(ws.at("blob.bin"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]));
    await expect(readFileTool.execute({ path: "blob.bin" }, ws.context)).rejects.toThrow(/blob\.bin looks like a binary file.*terminal/);
  });

  it("reports a missing file as FILE_NOT_FOUND with the path as given", async () => {
    const error = await readFileTool.execute({ path: "nope/missing.txt" }, ws.context).catch((e: unknown) => e);
    expect(CodecallError.isInstance(error, "FILE_NOT_FOUND")).toBe(true);
    expect((error as Error).message).toBe("File not found: nope/missing.txt");
  });

  it("refuses a directory with a hint to list it", async () => {
    await mkdir(ws.at("folder"));
    await expect(readFileTool.execute({ path: "folder" }, ws.context)).rejects.toThrow(/folder is a directory.*search_files/);
  });

  it("refuses files over the size limit before reading them, pointing at terminal", async () => {
    await writeFile(ws.at("big.log"), "y\n".repeat(2000));
    const tool = createReadFileTool({ maxFileBytes: 1000 });
    await expect(tool.execute({ path: "big.log" }, ws.context)).rejects.toThrow(
      /big\.log is 4,000 bytes, over the 1,000 bytes limit of read_file.*terminal\("head -n 200 big\.log"\)/,
    );
    // The default limit (10 MiB) lets the same file through.
    expect((await readFileTool.execute({ path: "big.log" }, ws.context)).total_lines).toBe(2000);
  });

  it("refuses special files such as /dev/zero instead of reading forever", async () => {
    await expect(readFileTool.execute({ path: "/dev/zero" }, ws.context)).rejects.toThrow(/not a regular file/);
  });

  it("rejects paths with NUL bytes", async () => {
    await expect(readFileTool.execute({ path: "a\0b" }, ws.context)).rejects.toThrow(/NUL/);
  });

  it("reads absolute paths and expands ~ with the environment's HOME", async () => {
    await writeFile(ws.at("home.txt"), "at home\n");
    expect((await readFileTool.execute({ path: ws.at("home.txt") }, ws.context)).content).toBe("     1|at home");
    const homed = createEnvironment({ cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.dir } });
    try {
      expect((await readFileTool.execute({ path: "~/home.txt" }, contextFor(homed))).content).toBe("     1|at home");
    } finally {
      await homed.close();
    }
  });
});
