// lastWhitespaceCut scans back by hand near the end and hands longer stretches to a regular
// expression; either way it must find exactly what `\s` (or ASCII whitespace) finds.
import { describe, expect, it } from "vitest";
import { lastWhitespaceCut } from "../src/text/whitespace-cut.js";

/** What the cut must be: the regular expression over the whole text before `limit`. */
function expected(text: string, limit: number, ascii: boolean): number {
  return text.slice(0, limit).search(ascii ? /[\t\n\v\f\r ][^\t\n\v\f\r ]*$/ : /\s\S*$/) + 1;
}

/** A deterministic pseudo-random generator (the same texts every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("lastWhitespaceCut", () => {
  it("counts as whitespace exactly what \\s does, for every UTF-16 code unit", () => {
    const differ: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      const text = `a${String.fromCharCode(code)}b`;
      if (lastWhitespaceCut(text, 3, false) !== expected(text, 3, false)) differ.push(code);
      if (lastWhitespaceCut(text, 3, true) !== expected(text, 3, true)) differ.push(code);
    }
    expect(differ).toEqual([]);
  });

  it("finds what the regular expression finds, near the end and far back", () => {
    const next = random(7);
    const pieces = ["x", "word", "é", "\n", " ", "\t", "\u00a0", "\u2028", "\u3000", "\r\n"];
    for (let round = 0; round < 400; round += 1) {
      // Runs without whitespace up to several times the hand-scanned stretch.
      const run = "y".repeat(Math.floor(next() * 3000));
      let text = "";
      while (text.length < 50 + next() * 5000) text += next() < 0.9 ? pieces[Math.floor(next() * 3)] : pieces[Math.floor(next() * pieces.length)];
      text = next() < 0.5 ? text + run : run + text + run;
      const limit = Math.floor(next() * (text.length + 1));
      for (const ascii of [false, true]) expect(lastWhitespaceCut(text, limit, ascii)).toBe(expected(text, limit, ascii));
    }
  });

  it("is 0 for a text without whitespace, and just after a whitespace at the very start", () => {
    expect(lastWhitespaceCut("z".repeat(5000), 5000, false)).toBe(0);
    expect(lastWhitespaceCut(` ${"z".repeat(5000)}`, 5001, true)).toBe(1);
    expect(lastWhitespaceCut("", 0, false)).toBe(0);
  });
});
