/**
 * Masks secrets in text that goes back to the model: well-known token formats, bearer headers,
 * passwords in connection URLs, PEM private keys, and the exact values of host secrets the run
 * knows about (a script that reads a key from a file cannot print it back whole).
 */

const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g;

/** The well-known token formats, one alternative each. */
const TOKEN_ALTERNATIVES =
  "(?:" +
  [
    "sk-[A-Za-z0-9_-]{16,}", // OpenAI, Anthropic
    "(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", // Stripe
    "gh[pousr]_[A-Za-z0-9]{20,}", // GitHub
    "github_pat_[A-Za-z0-9_]{20,}",
    "glpat-[A-Za-z0-9_-]{20,}", // GitLab
    "xox[abprs]-[A-Za-z0-9-]{10,}", // Slack
    "AIza[0-9A-Za-z_-]{30,}", // Google
    "(?:AKIA|ASIA)[0-9A-Z]{16}", // AWS access key ids
    "hf_[A-Za-z0-9]{20,}", // Hugging Face
    "npm_[A-Za-z0-9]{30,}",
    "pypi-[A-Za-z0-9_-]{20,}",
  ].join("|") +
  ")";

/** A character a token can follow only as part of a longer word, where it is no token. */
const WORD_CHARACTER = /[A-Za-z0-9_-]/;

/** A token: one of the formats, not preceded by a word character. */
const TOKEN_FORMATS = new RegExp(`(?<!${WORD_CHARACTER.source})${TOKEN_ALTERNATIVES}`, "g");

/**
 * The formats without that condition, which `redactPatterns` checks itself: V8 scans for this one
 * 1.5–2× as fast (a leading lookbehind is tried at every position), and redaction runs over every
 * byte of live output. The same matches: every character of a format is a word character, so a
 * candidate that follows one is inside a word, and so is each position up to its end.
 */
const TOKEN_CANDIDATES = new RegExp(TOKEN_ALTERNATIVES, "g");

/**
 * False when `text` holds no token: every format above holds "_" or "-", or starts "AIza", "AKIA"
 * or "ASIA". A few memchr-fast scans, where the expression costs ~6 ns a character: much output
 * (prose, numbers, a flood of one letter) has none of them.
 */
function mayHoldToken(text: string): boolean {
  return text.includes("_") || text.includes("-") || text.includes("AI") || text.includes("AK") || text.includes("AS");
}

const BEARER = /(\bBearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi;
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi;

/** Secrets shorter than this are not matched by value: too likely to hit ordinary text. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** The well-known formats `redactPatterns` masks (global regexps: use with `matchAll`). */
export const SECRET_PATTERNS: readonly RegExp[] = [PRIVATE_KEY_BLOCK, TOKEN_FORMATS, BEARER, URL_PASSWORD];

/** Hides a secret, keeping a recognisable head and tail when it is long enough not to leak. */
export function maskSecret(secret: string): string {
  return secret.length < 18 ? "***" : `${secret.slice(0, 6)}...${secret.slice(-4)}`;
}

export interface RedactOptions {
  /** Exact values to mask wherever they appear (e.g. the host's secret env values). */
  knownSecrets?: readonly string[];
}

export function redactSecrets(text: string, options: RedactOptions = {}): string {
  return redactPatterns(maskKnownSecrets(text, knownSecretList(options.knownSecrets)));
}

/** The values worth matching, longest first (so a secret that contains another is masked whole). */
export function knownSecretList(knownSecrets: readonly string[] | undefined): string[] {
  return [...new Set(knownSecrets ?? [])].filter((secret) => secret.length >= MIN_KNOWN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** First pass of `redactSecrets`: masks exact values (`secrets` as `knownSecretList` returns them). */
export function maskKnownSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(maskSecret(secret));
  }
  return out;
}

/** Masks the well-known token formats (TOKEN_FORMATS' matches) in `text`. */
function maskTokens(text: string): string {
  if (!mayHoldToken(text)) return text;
  return text.replace(TOKEN_CANDIDATES, (token: string, offset: number, whole: string) =>
    offset > 0 && WORD_CHARACTER.test(whole[offset - 1]!) ? token : maskSecret(token),
  );
}

/**
 * Second pass of `redactSecrets`: the well-known formats. No match of these contains whitespace,
 * except a private key block and the gap after `Bearer` (the streaming redactor relies on this).
 */
export function redactPatterns(text: string): string {
  const masked = maskTokens(text.replace(PRIVATE_KEY_BLOCK, "[REDACTED PRIVATE KEY]")).replace(
    BEARER,
    (_, prefix: string, token: string) => prefix + maskSecret(token),
  );
  // Every URL password match holds "://": looking for it first skips a pass that tries the
  // expression at every word (the costliest of the four on ordinary output).
  return masked.includes("://")
    ? masked.replace(URL_PASSWORD, (_, head: string, password: string, at: string) => head + maskSecret(password) + at)
    : masked;
}
