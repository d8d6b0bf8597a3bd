/**
 * `redactSecrets` for text that arrives in chunks (a script's live output). A secret split across
 * chunks is masked as if the text had come whole: each push emits the redacted text up to the last
 * point where no match can still grow, and holds back only the rest.
 *
 * The two passes of `redactSecrets` run as two stages. Exact values: the held tail is the longest
 * end of the text that is the beginning of a known secret (so at most the longest secret's length).
 * Well-known formats: no match contains whitespace (see `redactPatterns`), so the text is emitted up
 * to its last whitespace, unless that whitespace lies inside a `Bearer` header (before its token
 * has ended) or a private key block, which are held whole. A stretch without a safe point longer
 * than `maxHeldChars` is cut anyway (best effort, at a character no token contains when there is
 * one nearby), so memory stays bounded.
 */
import { knownSecretList, maskKnownSecrets, redactPatterns } from "./redact.js";
import { secretPrefixStart } from "./secret-fragments.js";
import { lastWhitespaceCut } from "./whitespace-cut.js";

/** What a redactor may hold back while waiting for a safe cut (characters). */
export const DEFAULT_MAX_HELD_CHARS = 16 * 1024;

/** How far a forced cut looks back for a character no token or password contains. */
const FORCED_CUT_LOOKBACK = 1024;
const TOKEN_CHAR = /[A-Za-z0-9._~+/=:@-]/;

const BEARER_WORD = /\bBearer(?=\s)/gi;
/** Where a bearer match may lie: the header, its whitespace and its token (which may still grow). */
const BEARER_REGION_AT = /Bearer\s+[A-Za-z0-9._~+/=-]*/iy;
const PEM_BEGIN = /-----BEGIN /g;
/** A private key block at a given index; its header alone; a header still unfinished at the end. */
const PEM_BLOCK_AT = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/y;
const PEM_HEADER_AT = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/y;
const PEM_OPEN_HEADER_AT = /-----BEGIN [A-Z0-9 ]*-{0,4}$/y;

/** A stretch a whitespace cut must not fall into; `end` is Infinity while it may still grow. */
interface Region {
  start: number;
  end: number;
}

export interface StreamingRedactorOptions {
  /** Exact values to mask (as for `redactSecrets`). */
  knownSecrets?: readonly string[];
  /** Bound on held-back text (default 16 Ki characters: a 4096-bit RSA key block is about 3.3 Ki). */
  maxHeldChars?: number;
}

export class StreamingRedactor {
  readonly #secrets: string[];
  readonly #maxHeld: number;
  /** Text not yet through the exact-value pass. */
  #knownHeld = "";
  /** Text through the exact-value pass, not yet through the format pass. */
  #patternHeld = "";

  constructor(options: StreamingRedactorOptions = {}) {
    this.#secrets = knownSecretList(options.knownSecrets);
    this.#maxHeld = Math.max(options.maxHeldChars ?? DEFAULT_MAX_HELD_CHARS, 1);
  }

  /** Takes the next chunk; returns the redacted text that is final (possibly empty). */
  push(text: string): string {
    const buffer = this.#knownHeld + text;
    const cut = secretSafeCut(buffer, this.#secrets);
    this.#knownHeld = buffer.slice(cut);
    return this.#pushPatterns(maskKnownSecrets(buffer.slice(0, cut), this.#secrets));
  }

  /** Ends the stream: returns everything still held, redacted. */
  flush(): string {
    const rest = this.#patternHeld + maskKnownSecrets(this.#knownHeld, this.#secrets);
    this.#knownHeld = "";
    this.#patternHeld = "";
    return redactPatterns(rest);
  }

  #pushPatterns(text: string): string {
    const buffer = this.#patternHeld + text;
    // Without new whitespace there is no new place to cut: skip the search (a script that writes a
    // byte at a time would otherwise make each write cost a scan of everything held).
    if (buffer.length <= this.#maxHeld && !/\s/.test(text)) {
      this.#patternHeld = buffer;
      return "";
    }
    let cut = patternSafeCut(buffer);
    // Forced down to half the bound, so the next forced cut is far off again.
    if (buffer.length - cut > this.#maxHeld) cut = forcedCut(buffer, buffer.length - Math.ceil(this.#maxHeld / 2));
    this.#patternHeld = buffer.slice(cut);
    return redactPatterns(buffer.slice(0, cut));
  }
}

/**
 * Where `text` can be cut so that no known secret spans the cut, whatever follows: before the
 * earliest end of the text that begins a secret, and before any whole secret that crosses that point.
 */
function secretSafeCut(text: string, secrets: readonly string[]): number {
  let cut = text.length;
  for (const secret of secrets) {
    const start = secretPrefixStart(text, secret, 1);
    if (start < cut) cut = start;
  }
  // A shorter secret's beginning can sit inside a longer secret that is already whole.
  for (let moved = true; moved;) {
    moved = false;
    for (const secret of secrets) {
      const found = text.indexOf(secret, Math.max(0, cut - secret.length + 1));
      if (found !== -1 && found < cut) {
        cut = found;
        moved = true;
      }
    }
  }
  return cut;
}

/** Where `text` can be cut so that no well-known format spans the cut, whatever follows. */
function patternSafeCut(text: string): number {
  return cutOutside(text, [...bearerRegions(text), ...privateKeyRegions(text)], false);
}

/**
 * Where `text` can be cut in one pass, just after an ASCII whitespace character, so that neither a
 * known secret (`secrets` as `knownSecretList` returns them) nor a well-known format spans the cut,
 * whatever follows: redacting the text before it on its own masks what redacting all would.
 * 0 when there is no such place. ASCII only, so the cut maps onto the bytes the text was decoded
 * from (an ASCII byte is never part of another character, nor of a replaced invalid sequence).
 */
export function asciiSafeCut(text: string, secrets: readonly string[]): number {
  const regions = [...bearerRegions(text), ...privateKeyRegions(text)];
  for (const secret of secrets) {
    for (let index = text.indexOf(secret); index !== -1; index = text.indexOf(secret, index + 1))
      regions.push({ start: index, end: index + secret.length });
    const begun = secretPrefixStart(text, secret, 1);
    if (begun < text.length) regions.push({ start: begun, end: Infinity });
  }
  return cutOutside(text, regions, true);
}

/** The last whitespace cut (ASCII whitespace only with `ascii`) that falls in none of `regions`; 0 if none. */
function cutOutside(text: string, regions: readonly Region[], ascii: boolean): number {
  let cut = lastWhitespaceCut(text, text.length, ascii);
  for (;;) {
    const split = regions.find((region) => region.start < cut && cut < region.end);
    if (!split) return cut;
    cut = lastWhitespaceCut(text, split.start, ascii);
  }
}

/** Each `Bearer` header's region (they may overlap: `Bearer bearer <token>` holds two candidates). */
function bearerRegions(text: string): Region[] {
  return [...text.matchAll(BEARER_WORD)].map((match) => {
    BEARER_REGION_AT.lastIndex = match.index;
    BEARER_REGION_AT.test(text);
    const end = BEARER_REGION_AT.lastIndex;
    return { start: match.index, end: end === text.length ? Infinity : end };
  });
}

/** Private key blocks, whole or begun; a certificate or other PEM block is not one. */
function privateKeyRegions(text: string): Region[] {
  const regions: Region[] = [];
  PEM_BEGIN.lastIndex = 0;
  for (let match = PEM_BEGIN.exec(text); match; match = PEM_BEGIN.exec(text)) {
    PEM_BLOCK_AT.lastIndex = match.index;
    if (PEM_BLOCK_AT.test(text)) {
      regions.push({ start: match.index, end: PEM_BLOCK_AT.lastIndex });
      PEM_BEGIN.lastIndex = PEM_BLOCK_AT.lastIndex;
      continue;
    }
    PEM_HEADER_AT.lastIndex = match.index;
    PEM_OPEN_HEADER_AT.lastIndex = match.index;
    if (PEM_HEADER_AT.test(text) || PEM_OPEN_HEADER_AT.test(text)) regions.push({ start: match.index, end: Infinity });
  }
  return regions;
}

/** A cut at or before `limit`, preferring a character that no token contains. */
function forcedCut(text: string, limit: number): number {
  for (let cut = limit; cut > 0 && cut > limit - FORCED_CUT_LOOKBACK; cut -= 1) {
    if (!TOKEN_CHAR.test(text[cut - 1]!)) return cut;
  }
  return limit;
}
