/**
 * Measures an encoded JSON text without parsing it (a linear scan, no recursion, no allocation):
 * how deeply it nests and how many bytes it takes in UTF-8. The dispatcher uses it to refuse
 * frames a guest could not decode — Python's `json` module recurses once per level.
 */

/**
 * Default deepest nesting of a tool's arguments or result, in levels of arrays/objects: beyond any
 * real tool's, and well inside what argument validation (several stack frames per level) fits in a
 * default stack. Schemas are held to it too.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

export interface JsonMeasure {
  /** 0 for a scalar, 1 for `[]` or `{}`, 2 for `[[]]`, ... */
  depth: number;
  /** Length in UTF-8. */
  bytes: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Measures well-formed JSON text (as `JSON.stringify` writes it); brackets inside strings do not count. */
export function measureJson(text: string): JsonMeasure {
  let depth = 0;
  let deepest = 0;
  let bytes = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      // A surrogate pair is one 4-byte character.
      bytes += 4;
      index += 1;
      continue;
    } else bytes += 3;
    if (inString) {
      if (code === BACKSLASH) {
        index += 1;
        bytes += 1;
      } else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, (depth += 1));
    else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return { depth: deepest, bytes };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
