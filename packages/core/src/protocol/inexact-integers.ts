/**
 * Integers in a JSON text that a JavaScript number cannot hold exactly. `JSON.parse` reads every
 * number as a double, so an integer past 2^53 (a 64-bit id, a Discord or Twitter snowflake) would
 * reach a tool rounded: another value, and no error. Python writes its ints as plain digit runs,
 * so such an integer is a run of 16 or more digits with no fraction or exponent, outside strings.
 */

/** Fewer digits always fit: 10^15 < 2^53. */
const LONG_DIGIT_RUN = /\d{16}/;
/** The longest literal a message shows. */
const SHOWN_DIGITS = 40;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The first integer literal of well-formed JSON `text` that `JSON.parse` would change, or
 * undefined. Costs one regular-expression test for a text without a run of 16 digits.
 */
export function firstInexactInteger(text: string): string | undefined {
  if (!LONG_DIGIT_RUN.test(text)) return undefined;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) {
      inString = true;
      continue;
    }
    if (code !== MINUS && !isDigit(code)) continue;
    let end = index + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    const next = text.charCodeAt(end);
    const isInteger = next !== 0x2e && next !== 0x65 && next !== 0x45; // not . e E
    const literal = text.slice(index, end);
    if (isInteger && end - index >= 16 && BigInt(literal) !== BigInt(Number(literal))) return literal;
    // A fraction or exponent is a float in Python too: an approximation by its nature.
    while (end < text.length && /[-+.eE0-9]/.test(text[end]!)) end += 1;
    index = end - 1;
  }
  return undefined;
}

/** How a refusal shows `literal`: whole when short, else its ends. */
export function showInteger(literal: string): string {
  return literal.length <= SHOWN_DIGITS ? literal : `${literal.slice(0, 20)}…${literal.slice(-10)} (${literal.length} digits)`;
}
