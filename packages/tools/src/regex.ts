/**
 * Models write Perl-style regular expressions (`\d+`, `\s*`, `\w+`); `grep -E` speaks POSIX ERE,
 * where GNU grep reads `\d` as a plain `d` (with a warning) and BSD grep may not know `\s`.
 * This rewrites those shorthand classes into POSIX bracket classes, which every grep knows, and
 * leaves everything else alone.
 */

const OUTSIDE: Readonly<Record<string, string>> = {
  d: "[0-9]",
  D: "[^0-9]",
  s: "[[:space:]]",
  S: "[^[:space:]]",
  w: "[[:alnum:]_]",
  W: "[^[:alnum:]_]",
};

/** Inside a bracket expression only the positive classes can be spliced in. */
const INSIDE: Readonly<Record<string, string>> = {
  d: "0-9",
  s: "[:space:]",
  w: "[:alnum:]_",
};

/** `pattern` with `\d \D \s \S \w \W` turned into POSIX classes (inside `[...]`: `\d \s \w`). */
export function toPosixEre(pattern: string): string {
  let out = "";
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "\\" && index + 1 < pattern.length) {
      const next = pattern[index + 1]!;
      out += OUTSIDE[next] ?? `\\${next}`;
      index += 2;
      continue;
    }
    if (char === "[") {
      const end = bracketEnd(pattern, index);
      if (end === -1) {
        // Unbalanced: leave the rest to grep, which reports the error.
        out += pattern.slice(index);
        break;
      }
      out += rewriteBracket(pattern.slice(index, end + 1));
      index = end + 1;
      continue;
    }
    out += char;
    index += 1;
  }
  return out;
}

/** Index of the `]` closing the bracket expression that opens at `start`, or -1. */
function bracketEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === "^") index += 1;
  // A `]` first in the list is a literal.
  if (pattern[index] === "]") index += 1;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "[" && (pattern[index + 1] === ":" || pattern[index + 1] === "." || pattern[index + 1] === "=")) {
      const close = pattern.indexOf(`${pattern[index + 1]}]`, index + 2);
      if (close === -1) return -1;
      index = close + 2;
      continue;
    }
    if (char === "]") return index;
    index += 1;
  }
  return -1;
}

function rewriteBracket(bracket: string): string {
  return bracket.replace(/\\([dsw])/g, (_match, name: string) => INSIDE[name]!);
}
