/**
 * Which environment variables a script (and the commands its tools run) may see. The default is
 * an allowlist of harmless names, minus anything whose name looks secret, plus the names the
 * caller passes through explicitly. It applies on every backend: the source is the environment's
 * own default env (the host's env for the local backend).
 *
 * The host process's own env matters on remote backends too, for two things: a passed-through name
 * takes its value from the host (that is what the caller sees and means), and the values of the
 * host's secret-looking variables are masked in the output (a host tool may read one and return it).
 */

/** Names that pass as they are. */
export const SAFE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "SHELL",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "CONDA_DEFAULT_ENV",
];

/** Name prefixes that pass (exact prefixes: `TERM` does not let `TERMINAL_X` through). */
export const SAFE_ENV_PREFIXES: readonly string[] = ["LC_", "PYTHON", "XDG_"];

/** Substrings (of the upper-cased name) that mark a variable as secret. */
export const SECRET_NAME_MARKERS: readonly string[] = [
  "KEY",
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "CREDENTIAL",
  "CREDS",
  "AUTH",
  "DSN",
  "WEBHOOK",
  "BEARER",
  "COOKIE",
  "SESSION",
  "PRIVATE",
  "PASSPHRASE",
];

/** `PASS` as a whole word of the name (`PASS`, `DB_PASS`, `SMTP_PASS_FILE`), not `COMPASS` or `PASSENGER`. */
const PASS_WORD = /(?:^|_)PASS(?:_|$)/;

/** A URL that carries a password (`scheme://user:password@host`). */
const URL_WITH_PASSWORD = /:\/\/[^\s/@]+:[^\s/@]+@/;

export interface EnvPolicy {
  /** Names passed through even when they look secret (the caller vouches for them). */
  passthrough?: readonly string[];
  /** Extra variables set for the script, after filtering. */
  set?: Readonly<Record<string, string>>;
  /**
   * The host process's env (where the embedder runs). A passthrough name takes its value from here
   * first, then from the environment's own env; the values of its secret-looking variables are
   * masked in the output. `executeCode` defaults it to the running process's env (`readHostEnv`).
   */
  host?: Readonly<Record<string, string | undefined>>;
}

export interface ScrubbedEnv {
  /** The variables the script gets. */
  env: Record<string, string>;
  /** Names that were dropped (for debug output; never their values). */
  dropped: string[];
  /**
   * Values to redact from output: dropped variables whose names look secret (or that hold a URL
   * with a password), the same from the host env, and passed-through secret-looking variables.
   */
  secretValues: string[];
}

/** True when a variable name looks like it holds a secret. */
export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME_MARKERS.some((marker) => upper.includes(marker)) || PASS_WORD.test(upper);
}

function holdsSecret(name: string, value: string): boolean {
  return looksSecret(name) || URL_WITH_PASSWORD.test(value);
}

/** True when the allowlist lets the name through on its own. */
function isAllowed(name: string): boolean {
  if (looksSecret(name)) return false;
  return SAFE_ENV_NAMES.includes(name) || SAFE_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * Applies the policy to `source`. Order: passthrough (host value first), then secret block, then
 * allowlist, then `set`.
 */
export function scrubEnv(source: Readonly<Record<string, string | undefined>>, policy: EnvPolicy = {}): ScrubbedEnv {
  const passthrough = new Set(policy.passthrough ?? []);
  const host = policy.host ?? {};
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  const secretValues: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || passthrough.has(name)) continue;
    if (isAllowed(name)) {
      env[name] = value;
      continue;
    }
    dropped.push(name);
    if (holdsSecret(name, value)) secretValues.push(value);
  }
  for (const name of passthrough) {
    const value = host[name] ?? source[name];
    if (value === undefined) continue;
    env[name] = value;
    // The caller vouches for the script seeing it, not for the model reading it.
    if (holdsSecret(name, value)) secretValues.push(value);
  }
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && !isAllowed(name) && holdsSecret(name, value)) secretValues.push(value);
  }
  return { env: { ...env, ...policy.set }, dropped, secretValues: [...new Set(secretValues)] };
}

/** The names `scrubEnv` dropped and why, for a debug line: names only, never values. */
export function describeDropped(dropped: readonly string[]): string {
  if (dropped.length === 0) return "nothing withheld from the script";
  const secret = dropped.filter((name) => looksSecret(name));
  const unlisted = dropped.filter((name) => !looksSecret(name));
  const reasons = [
    secret.length > 0 ? `secret-looking: ${secret.join(" ")}` : undefined,
    unlisted.length > 0 ? `not on the allowlist: ${unlisted.join(" ")}` : undefined,
  ];
  return `withheld from the script (env.passthrough lets a name through): ${reasons.filter(Boolean).join("; ")}`;
}
