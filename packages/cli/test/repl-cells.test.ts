import { describe, expect, it } from "vitest";
import { CellReader, type ReplInput } from "../src/repl-cells.js";

/** Feeds lines and keeps what they complete (not the "more" answers), then the end of input. */
function read(lines: string[]): (ReplInput | { kind: "end"; code: string })[] {
  const reader = new CellReader();
  const out: (ReplInput | { kind: "end"; code: string })[] = lines.map((line) => reader.push(line)).filter((input) => input.kind !== "more");
  const rest = reader.end();
  if (rest !== undefined) out.push(rest.kind === "cell" ? { kind: "end", code: rest.code } : rest);
  return out;
}

describe("CellReader: how repl input becomes cells", () => {
  it("a plain line is a cell on its own; blank lines between cells are nothing", () => {
    expect(read(["x = 1", "", "print(x)"])).toEqual([
      { kind: "cell", code: "x = 1" },
      { kind: "cell", code: "print(x)" },
    ]);
  });

  it("a line ending with a colon opens a block that a blank line ends", () => {
    expect(read(["def f(a):", "    return a * 2", "", "print(f(2))"])).toEqual([
      { kind: "cell", code: "def f(a):\n    return a * 2" },
      { kind: "cell", code: "print(f(2))" },
    ]);
  });

  it("reads the colon before a comment, and ignores colons and brackets in comments and strings", () => {
    expect(read(["for i in range(2):  # loop", "    print(i)", ""])).toEqual([{ kind: "cell", code: "for i in range(2):  # loop\n    print(i)" }]);
    expect(read(["print('a:')", "x = 1  # note: ("])).toEqual([
      { kind: "cell", code: "print('a:')" },
      { kind: "cell", code: "x = 1  # note: (" },
    ]);
  });

  it("open brackets and triple-quoted strings keep the cell open, even across blank lines, until they close", () => {
    expect(read(["data = [", "  1,", "", "  2]", "text = '''one", "", "two'''", "print(len(text))"])).toEqual([
      { kind: "cell", code: "data = [\n  1,\n\n  2]" },
      { kind: "cell", code: "text = '''one\n\ntwo'''" },
      { kind: "cell", code: "print(len(text))" },
    ]);
  });

  it("a decorator opens a block that a blank line ends; a trailing backslash joins the next line", () => {
    expect(read(["@staticmethod", "def g(): pass", "", "y = 1 + \\", "  2", "z = 3"])).toEqual([
      { kind: "cell", code: "@staticmethod\ndef g(): pass" },
      { kind: "cell", code: "y = 1 + \\\n  2" },
      { kind: "cell", code: "z = 3" },
    ]);
  });

  it("a line starting with a colon outside a block is a command; inside a block it is code", () => {
    expect(read([":reset", "  :quit  ", ":help me"])).toEqual([
      { kind: "command", name: "reset", argument: "" },
      { kind: "command", name: "quit", argument: "" },
      { kind: "command", name: "help", argument: "me" },
    ]);
    expect(read(["d = {", ":reset", "}"])).toEqual([{ kind: "cell", code: "d = {\n:reset\n}" }]);
    expect(read(["if x:", ":reset"])).toEqual([{ kind: "end", code: "if x:\n:reset" }]);
  });

  it("the end of input runs the open block; clear() drops it", () => {
    expect(read(["if True:", "    print('last')"])).toEqual([{ kind: "end", code: "if True:\n    print('last')" }]);
    const reader = new CellReader();
    reader.push("while True:");
    expect(reader.open).toBe(true);
    reader.clear();
    expect(reader.open).toBe(false);
    expect(reader.end()).toBeUndefined();
  });

  it("escaped quotes do not end a string", () => {
    expect(read(["s = 'it\\'s ('", "print(s)"])).toEqual([
      { kind: "cell", code: "s = 'it\\'s ('" },
      { kind: "cell", code: "print(s)" },
    ]);
  });

  it("a string continued with a backslash at the end of a line stays open on the next", () => {
    expect(read(["s = 'one \\", "two ('", "print(s)"])).toEqual([
      { kind: "cell", code: "s = 'one \\\ntwo ('" },
      { kind: "cell", code: "print(s)" },
    ]);
  });

  it("reads a long cell line by line, not again from its start at every line (a pasted 20 000-line list)", () => {
    const lines = ["x = [", ...Array.from({ length: 20_000 }, (_, index) => `  ${index},  # item`), "]", "print(len(x))"];
    const cells = read(lines);
    expect(cells).toHaveLength(2);
    expect(cells[0]).toMatchObject({ kind: "cell" });
    expect((cells[0] as { code: string }).code.split("\n")).toHaveLength(20_002);
  });

  it("refuses a cell over the size limit as a whole and goes on with the next; memory stays bounded", () => {
    const line = `  "${"y".repeat(1000)}",`;
    const reader = new CellReader(100_000);
    const inputs = [reader.push("x = [")];
    for (let index = 0; index < 500; index += 1) inputs.push(reader.push(line));
    inputs.push(reader.push("]"), reader.push("print(1)"));
    const done = inputs.filter((input) => input.kind !== "more");
    expect(done).toEqual([
      { kind: "refused", reason: expect.stringMatching(/^the cell is over 100000 characters/) as unknown },
      { kind: "cell", code: "print(1)" },
    ]);
  });
});
