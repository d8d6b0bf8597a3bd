import { describe, expect, it } from "vitest";
import { stripAnsi } from "../src/text/ansi.js";

describe("stripAnsi", () => {
  it("removes colours and styles", () => {
    expect(stripAnsi("\u001b[31mred\u001b[0m and \u001b[1;38;5;208mbold orange\u001b[m")).toBe("red and bold orange");
    expect(stripAnsi("\u001b[38;2;255;0;0mtruecolor\u001b[39m")).toBe("truecolor");
  });

  it("removes cursor movement, erase and private-mode sequences", () => {
    expect(stripAnsi("a\u001b[2K\u001b[1Gb\u001b[3A\u001b[?25lc\u001b[?25h")).toBe("abc");
    expect(stripAnsi("x\u001b[>4;2my")).toBe("xy");
  });

  it("removes OSC strings ended by BEL or ST, e.g. titles and hyperlinks", () => {
    expect(stripAnsi("\u001b]0;window title\u0007text")).toBe("text");
    expect(stripAnsi("\u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\")).toBe("link");
  });

  it("removes DCS strings, two-byte escapes and 8-bit C1 controls", () => {
    expect(stripAnsi("a\u001bPq#0;2;0;0;0\u001b\\b")).toBe("ab");
    expect(stripAnsi("a\u001b7b\u001b8c\u001bMd")).toBe("abcd");
    expect(stripAnsi("a\u001b(Bb")).toBe("ab");
    expect(stripAnsi("a\u009b31mb\u0085c")).toBe("abc");
  });

  it("leaves no ESC behind, even one that begins no sequence a terminal would end", () => {
    // A terminal runs a control character met inside a sequence and goes on with it:
    // ESC LF c moves down a line, then resets the terminal (ESC c).
    expect(stripAnsi("a\u001b\nc")).toBe("a\nc");
    expect(stripAnsi("a\u001b")).toBe("a");
    expect(stripAnsi("a\u001b\u001b\u0007b")).toBe("a\u0007b");
    expect(stripAnsi("\u001b]52;c;aGk=")).not.toContain("\u001b");
  });

  it("leaves plain text, newlines, tabs and non-ASCII text as they are", () => {
    const text = "plain text\n\ttabbed — café 世界 😀 [31m not an escape";
    expect(stripAnsi(text)).toBe(text);
    expect(stripAnsi("")).toBe("");
  });
});
