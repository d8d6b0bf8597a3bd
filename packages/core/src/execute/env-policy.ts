/**
 * Which environment variables a script (and the commands its tools run) may see. The default is
 * an allowlist of harmless names, minus anything whose name looks secret, plus the names the
 * caller passes through explicitly. It applies on every backend: the source is the environment's
 * own default env (the host's env for the local backend).
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
];

export interface EnvPolicy {
  /** Names passed through even when they look secret (the caller vouches for them). */
  passthrough?: readonly string[];
  /** Extra variables set for the script, after filtering. */
  set?: Readonly<Record<string, string>>;
}

export interface ScrubbedEnv {
  /** The variables the script gets. */
  env: Record<string, string>;
  /** Names that were dropped (for debug output; never their values). */
  dropped: string[];
  /** Values of dropped variables whose names look secret, to be redacted from output. */
  secretValues: string[];
}

/** True when a variable name looks like it holds a secret. */
export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME_MARKERS.some((marker) => upper.includes(marker));
}

function isSafeName(name: string): boolean {
  return SAFE_ENV_NAMES.includes(name) || SAFE_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Applies the policy to `source`. Order: passthrough, then secret block, then allowlist. */
export function scrubEnv(source: Readonly<Record<string, string | undefined>>, policy: EnvPolicy = {}): ScrubbedEnv {
  const passthrough = new Set(policy.passthrough ?? []);
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  const secretValues: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (passthrough.has(name) || (!looksSecret(name) && isSafeName(name))) {
      env[name] = value;
      continue;
    }
    dropped.push(name);
    if (looksSecret(name) || /:\/\/[^\s/@]+:[^\s/@]+@/.test(value)) secretValues.push(value);
  }
  return { env: { ...env, ...policy.set }, dropped, secretValues };
}
