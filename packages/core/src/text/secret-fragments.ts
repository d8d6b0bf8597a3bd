/**
 * Pieces of secrets at the edges of a text. A truncation cut can split a secret so that neither
 * part is recognisable any more (redaction matches whole values and whole tokens); these helpers
 * find such pieces so the cut can be widened past them.
 */
import { SECRET_PATTERNS } from "./redact.js";

/** A piece of a secret shorter than this may stay at a cut: too short to be of use. */
export const MIN_SECRET_FRAGMENT = 8;

/**
 * How much text on the other side of a cut the capture keeps to look at: a secret that starts (or
 * ends) within this distance of the cut is found whole and the cut widened past it.
 */
export const CUT_CONTEXT_BYTES = 1024;

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

/** Where redaction would mask something in `text`: known values and well-known formats. */
function secretSpans(text: string, knownSecrets: readonly string[]): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  for (const secret of knownSecrets) {
    for (let index = text.indexOf(secret); index !== -1; index = text.indexOf(secret, index + 1))
      spans.push({ start: index, end: index + secret.length });
  }
  for (const pattern of SECRET_PATTERNS) {
    for (const match of text.matchAll(pattern)) spans.push({ start: match.index, end: match.index + match[0].length });
  }
  return spans;
}

/**
 * Where to end `text` (the part before a cut) so that it keeps no piece of 8+ characters of a
 * secret whose rest was cut off. `after` is what followed the cut (up to `CUT_CONTEXT_BYTES`), so
 * that a secret crossing the cut is found whole; a known value or a private key block longer than
 * that is still found by its beginning.
 */
export function fragmentFreeEnd(text: string, knownSecrets: readonly string[], after: string): number {
  let end = text.length;
  for (const secret of knownSecrets) end = Math.min(end, secretPrefixStart(text, secret, MIN_SECRET_FRAGMENT));
  const near = Math.max(0, text.length - CUT_CONTEXT_BYTES);
  for (const span of secretSpans(text.slice(near) + after, knownSecrets)) {
    if (near + span.start < text.length && near + span.end > text.length) end = Math.min(end, near + span.start);
  }
  // Last, on what the rules above kept: they may have cut the end marker off a whole block.
  const begin = text.lastIndexOf("-----BEGIN ", end);
  const block = text.slice(begin, end);
  if (begin !== -1 && PEM_HEADER_OPEN.test(block) && !PEM_END.test(block)) end = begin;
  return end;
}

/**
 * Where to start `text` (the part after a cut) so that it keeps no piece of 8+ characters of a
 * secret whose beginning was cut off. `before` is what preceded the cut (up to `CUT_CONTEXT_BYTES`).
 */
export function fragmentFreeStart(text: string, knownSecrets: readonly string[], before: string): number {
  let start = 0;
  for (const secret of knownSecrets) start = Math.max(start, secretSuffixLength(text, secret, MIN_SECRET_FRAGMENT));
  const near = text.slice(0, CUT_CONTEXT_BYTES);
  for (const span of secretSpans(before + near, knownSecrets)) {
    if (span.start < before.length && span.end > before.length) start = Math.max(start, span.end - before.length);
  }
  // Last, on what the rules above kept: they may have cut the header off a whole block.
  const rest = text.slice(start);
  const end = PEM_END.exec(rest);
  if (end && !rest.slice(0, end.index).includes("-----BEGIN ")) start += end.index + end[0].length;
  return start;
}
