/**
 * Pieces of secrets at the edges of a text. A truncation cut can split a secret so that neither
 * part is recognisable any more (redaction matches whole values and whole tokens); these helpers
 * find such pieces so the cut can be widened past them.
 */

/** A piece of a secret shorter than this may stay at a cut: too short to be of use. */
export const MIN_SECRET_FRAGMENT = 8;

/**
 * Longest run of token-like characters (token formats, bearer tokens, JWTs) that a cut may have
 * split. A longer run is kept: its start is already a whole match for redaction, or it is data.
 */
const MAX_SPLIT_TOKEN = 1024;

const TOKEN_RUN_AT_END = new RegExp(`(?<![A-Za-z0-9._~+/=-])[A-Za-z0-9._~+/=-]{${MIN_SECRET_FRAGMENT},${MAX_SPLIT_TOKEN}}$`);
const TOKEN_RUN_AT_START = new RegExp(`^[A-Za-z0-9._~+/=-]{${MIN_SECRET_FRAGMENT},${MAX_SPLIT_TOKEN}}(?![A-Za-z0-9._~+/=-])`);
/** A URL whose password has begun but not ended (no `@` yet). */
const OPEN_URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]*)$/i;
/**
 * What may remain of a URL's credentials after a cut (scheme, user and password up to the `@`;
 * bounded: a long stretch is data, not a password).
 */
const URL_CREDENTIALS_REST = new RegExp(`^[^\\s@]{${MIN_SECRET_FRAGMENT},256}(?=@)`);
const PEM_HEADER_OPEN = /^-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY-----|-{0,4}$)/;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * Index of the earliest end of `text`, at least `minLength` long, that is a proper beginning of
 * `secret` (it may continue past the end of `text`); `text.length` when there is none.
 */
export function secretPrefixStart(text: string, secret: string, minLength: number): number {
  const first = secret[0]!;
  let index = text.indexOf(first, Math.max(0, text.length - secret.length + 1));
  while (index !== -1 && text.length - index >= minLength) {
    if (secret.startsWith(text.slice(index))) return index;
    index = text.indexOf(first, index + 1);
  }
  return text.length;
}

/** Length of the longest beginning of `text`, at least `minLength`, that is a proper end of `secret`; 0 if none. */
function secretSuffixLength(text: string, secret: string, minLength: number): number {
  const first = text[0];
  if (first === undefined) return 0;
  for (let index = secret.indexOf(first, 1); index !== -1 && secret.length - index >= minLength; index = secret.indexOf(first, index + 1)) {
    if (text.startsWith(secret.slice(index))) return secret.length - index;
  }
  return 0;
}

/**
 * Where to end `text` (the part before a cut) so that it keeps no piece of 8+ characters of a
 * secret whose rest was cut off: a known value, a token, a URL password or a private key block.
 */
export function fragmentFreeEnd(text: string, knownSecrets: readonly string[]): number {
  let end = text.length;
  for (const secret of knownSecrets) end = Math.min(end, secretPrefixStart(text, secret, MIN_SECRET_FRAGMENT));
  // Only the last stretch can hold the run: keeps the search linear in the text.
  const lastStretch = text.slice(-(MAX_SPLIT_TOKEN + 1));
  const run = TOKEN_RUN_AT_END.exec(lastStretch);
  if (run) end = Math.min(end, text.length - lastStretch.length + run.index);
  const url = OPEN_URL_PASSWORD.exec(text);
  if (url) end = Math.min(end, text.length - url[1]!.length);
  // Last, on what the rules above kept: they may have cut the end marker off a whole block.
  const begin = text.lastIndexOf("-----BEGIN ", end);
  const block = text.slice(begin, end);
  if (begin !== -1 && PEM_HEADER_OPEN.test(block) && !PEM_END.test(block)) end = begin;
  return end;
}

/**
 * Where to start `text` (the part after a cut) so that it keeps no piece of 8+ characters of a
 * secret whose beginning was cut off.
 */
export function fragmentFreeStart(text: string, knownSecrets: readonly string[]): number {
  let start = 0;
  for (const secret of knownSecrets) start = Math.max(start, secretSuffixLength(text, secret, MIN_SECRET_FRAGMENT));
  start = Math.max(start, TOKEN_RUN_AT_START.exec(text)?.[0].length ?? 0, URL_CREDENTIALS_REST.exec(text)?.[0].length ?? 0);
  // Last, on what the rules above kept: they may have cut the header off a whole block.
  const rest = text.slice(start);
  const end = PEM_END.exec(rest);
  if (end && !rest.slice(0, end.index).includes("-----BEGIN ")) start += end.index + end[0].length;
  return start;
}
