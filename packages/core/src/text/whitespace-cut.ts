/**
 * Finding the last whitespace before a point of a text, which is where the streaming redactors cut
 * (no well-known secret format contains whitespace). Output arrives in lines, so the last
 * whitespace is almost always near the end: it is looked for from there backwards, which costs a
 * few characters, where a regular expression such as `/\s\S*$/` runs through the whole text (a
 * fifth of a live output flood's host CPU). Far back, the regular expression takes over: it is the
 * faster of the two over long stretches.
 */

/** How far back the scan by hand goes before the regular expression takes over. */
const NEAR_CHARS = 1024;

const LAST_WHITESPACE = /\s\S*$/;
const LAST_ASCII_WHITESPACE = /[\t\n\v\f\r ][^\t\n\v\f\r ]*$/;

/** ECMAScript's `\s` above U+007F (Unicode's Zs, the line and paragraph separators, and the BOM). */
function isNonAsciiWhitespace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Just after the last whitespace character of `text` before `limit`, 0 if there is none. `ascii`:
 * only ASCII whitespace counts (tab, line feed, vertical tab, form feed, carriage return, space);
 * otherwise whatever ECMAScript's `\s` matches.
 */
export function lastWhitespaceCut(text: string, limit: number, ascii: boolean): number {
  const near = Math.max(0, limit - NEAR_CHARS);
  for (let index = limit - 1; index >= near; index -= 1) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d) || (!ascii && code >= 0xa0 && isNonAsciiWhitespace(code))) return index + 1;
  }
  return near === 0 ? 0 : text.slice(0, near).search(ascii ? LAST_ASCII_WHITESPACE : LAST_WHITESPACE) + 1;
}
