import { access, mkdir, symlink, writeFile } from "node:fs/promises";
import { CodecallError } from "@codecall/core";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchFilesTool, searchFilesTool } from "../src/index.js";
import { useWorkspace } from "./support.js";

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe("search_files", () => {
  const ws = useWorkspace();

  beforeEach(async () => {
    const files: Record<string, string | Uint8Array> = {
      "src/app.py": "import os\n\ndef main():\n    return helper(42)\n",
      "src/util/helper.py": "def helper(x):\n    return x * 2  # TODO: check\n",
      "src/web/index.ts": "export function main(): number {\n  return 1;\n}\n",
      "docs/notes.md": "main idea: see foo() and a.c and abc\nphone 555-0100\n",
      "node_modules/dep/index.py": "def main():\n    pass\n",
      ".git/hooks/pre-commit.py": "def main():\n    pass\n",
      "data.bin": new Uint8Array([0x64, 0x65, 0x66, 0x20, 0x6d, 0x61, 0x69, 0x6e, 0x00, 0x01]), // "def main\0\1"
      "with space/odd name.py": "def main():  # spaced\n",
      "-dash.txt": "-flag value\n",
    };
    for (const [name, content] of Object.entries(files)) {
      await mkdir(ws.at(name).replace(/\/[^/]*$/, ""), { recursive: true });
      await writeFile(ws.at(name), content);
    }
  });

  it("finds matching lines with path, line number and text", async () => {
    const result = await searchFilesTool.execute({ pattern: "def \\w+\\(" }, ws.context);
    const sorted = [...result.matches].sort((a, b) => a.path.localeCompare(b.path));
    expect(sorted).toEqual([
      { path: "src/app.py", line: 3, text: "def main():" },
      { path: "src/util/helper.py", line: 1, text: "def helper(x):" },
      { path: "with space/odd name.py", line: 1, text: "def main():  # spaced" },
    ]);
    expect(result).toMatchObject({ files: [], total: 3, truncated: false });
  });

  it("skips .git, node_modules and binary files", async () => {
    const result = await searchFilesTool.execute({ pattern: "main" }, ws.context);
    const paths = new Set(result.matches.map((m) => m.path));
    expect(paths.has("src/app.py")).toBe(true);
    expect([...paths].filter((p) => p.includes("node_modules") || p.includes(".git") || p.includes("data.bin"))).toEqual([]);
  });

  it("searches inside an excluded directory when the search starts there", async () => {
    const result = await searchFilesTool.execute({ pattern: "def main", path: "node_modules" }, ws.context);
    expect(result.matches).toEqual([{ path: "node_modules/dep/index.py", line: 1, text: "def main():" }]);
  });

  it("restricts content search with file_glob", async () => {
    const result = await searchFilesTool.execute({ pattern: "main", file_glob: "*.ts" }, ws.context);
    expect(result.matches).toEqual([{ path: "src/web/index.ts", line: 1, text: "export function main(): number {" }]);
  });

  it("searches one file or a sub-directory given as path", async () => {
    const file = await searchFilesTool.execute({ pattern: "return", path: "src/util/helper.py" }, ws.context);
    expect(file.matches).toEqual([{ path: "src/util/helper.py", line: 2, text: "    return x * 2  # TODO: check" }]);
    const dir = await searchFilesTool.execute({ pattern: "return", path: "src/util" }, ws.context);
    expect(dir.matches).toEqual(file.matches);
    const absolute = await searchFilesTool.execute({ pattern: "return", path: ws.at("src/util") }, ws.context);
    expect(absolute.matches).toEqual([{ ...file.matches[0], path: ws.at("src/util/helper.py") }]);
  });

  it("follows a symlinked start directory", async () => {
    await symlink(ws.at("src/util"), ws.at("linked"));
    const result = await searchFilesTool.execute({ pattern: "TODO", path: "linked" }, ws.context);
    expect(result.total).toBe(1);
    expect(result.matches).toEqual([{ path: "linked/helper.py", line: 2, text: "    return x * 2  # TODO: check" }]);
  });

  it("searches symlinked files, as a start and inside the tree, and lists them by name", async () => {
    await symlink("notes.md", ws.at("docs/AGENTS.md"));
    await symlink("docs/notes.md", ws.at("CLAUDE.md"));
    const start = await searchFilesTool.execute({ pattern: "phone", path: "CLAUDE.md" }, ws.context);
    expect(start.matches).toEqual([{ path: "CLAUDE.md", line: 2, text: "phone 555-0100" }]);
    const inside = await searchFilesTool.execute({ pattern: "phone", path: "docs" }, ws.context);
    expect(inside.matches.map((match) => match.path).sort()).toEqual(["docs/AGENTS.md", "docs/notes.md"]);
    const names = await searchFilesTool.execute({ pattern: "*.md", target: "files" }, ws.context);
    expect(names.files).toEqual(["CLAUDE.md", "docs/AGENTS.md", "docs/notes.md"]);
  });

  it("reads file names holding ':digits:' as names (timestamped logs)", async () => {
    await writeFile(ws.at("run_2024-05-01T10:30:00.log"), "ok\nERROR disk full\n");
    const result = await searchFilesTool.execute({ pattern: "ERROR", path: "run_2024-05-01T10:30:00.log" }, ws.context);
    expect(result.matches).toEqual([{ path: "run_2024-05-01T10:30:00.log", line: 2, text: "ERROR disk full" }]);
  });

  it("pages long non-ASCII lines whole: every match comes back, on some page", async () => {
    const lines = Array.from({ length: 120 }, (_, index) => `foo ${index} ${"漢".repeat(5000)}`);
    await writeFile(ws.at("cjk.txt"), `${lines.join("\n")}\n`);
    const seen: number[] = [];
    for (let offset = 0; offset < 120; offset += 50) {
      const page = await searchFilesTool.execute({ pattern: "foo", path: "cjk.txt", limit: 50, offset }, ws.context);
      expect(page.total).toBe(120);
      seen.push(...page.matches.map((match) => match.line));
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
  });

  it("returns an empty page when nothing matches", async () => {
    expect(await searchFilesTool.execute({ pattern: "zzz_no_such_text" }, ws.context)).toEqual({
      matches: [],
      files: [],
      total: 0,
      truncated: false,
    });
    expect(await searchFilesTool.execute({ pattern: "*.nothing", target: "files" }, ws.context)).toEqual({
      matches: [],
      files: [],
      total: 0,
      truncated: false,
    });
  });

  it("pages content matches with limit and offset, counting all of them", async () => {
    await writeFile(ws.at("many.txt"), Array.from({ length: 25 }, (_, i) => `hit ${i + 1}`).join("\n"));
    const pages = [];
    for (let offset = 0; offset < 30; offset += 10) {
      pages.push(await searchFilesTool.execute({ pattern: "^hit", path: "many.txt", limit: 10, offset }, ws.context));
    }
    expect(pages.map((p) => [p.matches.length, p.total, p.truncated])).toEqual([
      [10, 25, true],
      [10, 25, true],
      [5, 25, false],
    ]);
    expect(pages.flatMap((p) => p.matches.map((m) => m.line))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const beyond = await searchFilesTool.execute({ pattern: "^hit", path: "many.txt", offset: 100 }, ws.context);
    expect(beyond).toMatchObject({ matches: [], total: 25, truncated: false });
  });

  it("finds file names by glob, sorted, skipping excluded directories", async () => {
    const result = await searchFilesTool.execute({ pattern: "*.py", target: "files" }, ws.context);
    expect(result).toEqual({
      matches: [],
      files: ["src/app.py", "src/util/helper.py", "with space/odd name.py"],
      total: 3,
      truncated: false,
    });
  });

  it("pages file names and combines pattern with file_glob", async () => {
    await mkdir(ws.at("gen"));
    for (let i = 0; i < 12; i += 1) await writeFile(ws.at(`gen/f${String(i).padStart(2, "0")}.log`), "");
    const first = await searchFilesTool.execute({ pattern: "f*", target: "files", path: "gen", limit: 5 }, ws.context);
    expect(first).toEqual({
      matches: [],
      files: ["gen/f00.log", "gen/f01.log", "gen/f02.log", "gen/f03.log", "gen/f04.log"],
      total: 12,
      truncated: true,
    });
    const last = await searchFilesTool.execute({ pattern: "f*", target: "files", path: "gen", limit: 5, offset: 10 }, ws.context);
    expect(last).toMatchObject({ files: ["gen/f10.log", "gen/f11.log"], truncated: false });
    const both = await searchFilesTool.execute({ pattern: "f1*", target: "files", path: "gen", file_glob: "*1.log" }, ws.context);
    expect(both.files).toEqual(["gen/f11.log"]);
  });

  it("treats regex special characters as regex, and accepts \\d \\s \\w", async () => {
    const literal = await searchFilesTool.execute({ pattern: "foo\\(\\)", path: "docs" }, ws.context);
    expect(literal.total).toBe(1);
    const dot = await searchFilesTool.execute({ pattern: "a\\.c", path: "docs" }, ws.context);
    expect(dot.matches.map((m) => m.line)).toEqual([1]);
    const digits = await searchFilesTool.execute({ pattern: "\\d{3}-\\d{4}", path: "docs" }, ws.context);
    expect(digits.matches).toEqual([{ path: "docs/notes.md", line: 2, text: "phone 555-0100" }]);
    const classes = await searchFilesTool.execute({ pattern: "[\\d]{3}\\s\\w", path: "src" }, ws.context);
    expect(classes.total).toBe(0);
    const alternation = await searchFilesTool.execute({ pattern: "^(import|export) ", path: "src" }, ws.context);
    expect(alternation.total).toBe(2);
  });

  it("handles a pattern and a path that start with a dash", async () => {
    const result = await searchFilesTool.execute({ pattern: "-flag", path: "-dash.txt" }, ws.context);
    expect(result.matches).toEqual([{ path: "-dash.txt", line: 1, text: "-flag value" }]);
  });

  it("explains an invalid regular expression", async () => {
    await expect(searchFilesTool.execute({ pattern: "(unclosed" }, ws.context)).rejects.toThrow(/Invalid regular expression "\(unclosed".*grep -E/);
  });

  it("reports a missing path as FILE_NOT_FOUND", async () => {
    const error = await searchFilesTool.execute({ pattern: "x", path: "no/such/place" }, ws.context).catch((e: unknown) => e);
    expect(CodecallError.isInstance(error, "FILE_NOT_FOUND")).toBe(true);
    expect((error as Error).message).toBe("Path not found: no/such/place");
  });

  it("refuses a glob with a directory part", async () => {
    await expect(searchFilesTool.execute({ pattern: "x", file_glob: "src/*.py" }, ws.context)).rejects.toThrow(/put the directory in path/);
    await expect(searchFilesTool.execute({ pattern: "src/*.py", target: "files" }, ws.context)).rejects.toThrow(/put the directory in path/);
  });

  it("cuts very long matching lines", async () => {
    await writeFile(ws.at("min.js"), `var a=${"1,".repeat(5000)}needle;\n`);
    const result = await createSearchFilesTool({ maxMatchChars: 100 }).execute({ pattern: "needle", path: "min.js" }, ws.context);
    expect(result.matches[0]!.text).toMatch(/^var a=1,1,.*… \[line truncated\]$/);
    expect(result.matches[0]!.text.length).toBeLessThan(130);
  });

  describe("never lets arguments reach the shell as code", () => {
    const attacks = (marker: string) => [
      `'; touch ${marker}; '`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `"; touch ${marker}; "`,
      `x' -o -exec touch ${marker} ';' -o -name 'y`,
      `\\'; touch ${marker}; #`,
    ];

    it("in pattern (content and files mode)", async () => {
      const marker = ws.at("pwned-pattern");
      for (const pattern of attacks(marker)) {
        await searchFilesTool.execute({ pattern }, ws.context).catch(() => undefined);
        await searchFilesTool.execute({ pattern: pattern.replaceAll("/", "_"), target: "files" }, ws.context).catch(() => undefined);
      }
      expect(await exists(marker)).toBe(false);
      // The attack string is searched for literally: a file containing it is found.
      await writeFile(ws.at("evil.txt"), `$(touch ${marker})\n`);
      const found = await searchFilesTool.execute({ pattern: `\\$\\(touch`, path: "evil.txt" }, ws.context);
      expect(found.total).toBe(1);
      expect(await exists(marker)).toBe(false);
    });

    it("in path and file_glob", async () => {
      const marker = ws.at("pwned-path");
      for (const value of attacks(marker)) {
        await searchFilesTool.execute({ pattern: "x", path: value }, ws.context).catch(() => undefined);
        await searchFilesTool.execute({ pattern: "x", file_glob: value.replaceAll("/", "_") }, ws.context).catch(() => undefined);
        await searchFilesTool.execute({ pattern: "*", target: "files", file_glob: value.replaceAll("/", "_") }, ws.context).catch(() => undefined);
      }
      expect(await exists(marker)).toBe(false);
    });
  });
});
