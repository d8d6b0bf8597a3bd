/**
 * `redactSecrets` for text that arrives in chunks (a script's live output). A secret split across
 * chunks is masked as if the text had come whole: each push emits the redacted text up to the last
 * point where no match can still grow, and holds back only the rest.
 *
 * The two passes of `redactSecrets` run as two stages. Exact values: the held tail is the longest
 * end of the text that is the beginning of a known secret (so at most the longest secret's length).
 * Well-known formats: no match contains whitespace (see `redactPatterns`), so the text is emitted up
 * to its last whitespace, except an unfinished `Bearer` token or private key block, which is held
 * whole. A stretch without a safe point longer than `maxHeldChars` is cut anyway (best effort, at a
 * character no token contains when there is one nearby), so memory stays bounded.
 */
import { knownSecretList, maskKnownSecrets, redactPatterns } from "./redact.js";
import { secretPrefixStart } from "./secret-fragments.js";

/** What a redactor may hold back while waiting for a safe cut (characters). */
export const DEFAULT_MAX_HELD_CHARS = 64 * 1024;

/** How far a forced cut looks back for a character no token or password contains. */
const FORCED_CUT_LOOKBACK = 1024;
const TOKEN_CHAR = /[A-Za-z0-9._~+/=:@-]/;
const LAST_WHITESPACE = /\s\S*$/;

/** A bearer header whose token may still grow. */
const OPEN_BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]*$/i;
const PEM_BEGIN = /-----BEGIN /g;
/** A private key header or block at the start of the text, and one whose header is still unfinished. */
const PEM_BLOCK_AT = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/y;
const PEM_HEADER_AT = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/y;
const PEM_OPEN_HEADER_AT = /-----BEGIN [A-Z0-9 ]*-{0,4}$/y;

export interface StreamingRedactorOptions {
  /** Exact values to mask (as for `redactSecrets`). */
  knownSecrets?: readonly string[];
  /** Bound on held-back text (default 64 Ki characters). */
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
    let cut = patternSafeCut(buffer);
    if (buffer.length - cut > this.#maxHeld) cut = forcedCut(buffer, buffer.length - this.#maxHeld);
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
  for (let moved = true; moved; ) {
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
  const limit = Math.min(openBearerStart(text), openPrivateKeyStart(text));
  const lastSpace = text.slice(0, limit).search(LAST_WHITESPACE);
  return lastSpace === -1 ? 0 : lastSpace + 1;
}

function openBearerStart(text: string): number {
  const match = OPEN_BEARER.exec(text);
  return match ? match.index : text.length;
}

/**
 * Start of a private key block (or header) that has begun but not ended, or that ends the text;
 * `text.length` if none.
 */
function openPrivateKeyStart(text: string): number {
  PEM_BEGIN.lastIndex = 0;
  for (let match = PEM_BEGIN.exec(text); match; match = PEM_BEGIN.exec(text)) {
    PEM_BLOCK_AT.lastIndex = match.index;
    if (PEM_BLOCK_AT.test(text)) {
      // A whole block with no whitespace after it would be split by the cut at its last line break.
      if (!/\s/.test(text.slice(PEM_BLOCK_AT.lastIndex))) return match.index;
      PEM_BEGIN.lastIndex = PEM_BLOCK_AT.lastIndex;
      continue;
    }
    PEM_HEADER_AT.lastIndex = match.index;
    PEM_OPEN_HEADER_AT.lastIndex = match.index;
    if (PEM_HEADER_AT.test(text) || PEM_OPEN_HEADER_AT.test(text)) return match.index;
  }
  return text.length;
}

/** A cut at or before `limit`, preferring a character that no token contains. */
function forcedCut(text: string, limit: number): number {
  for (let cut = limit; cut > 0 && cut > limit - FORCED_CUT_LOOKBACK; cut -= 1) {
    if (!TOKEN_CHAR.test(text[cut - 1]!)) return cut;
  }
  return limit;
}
