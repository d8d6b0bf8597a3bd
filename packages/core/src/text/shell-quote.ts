/**
 * Quotes a value for a POSIX shell: single quotes, with embedded single quotes closed, escaped and
 * reopened. Every backend runs commands through `sh`, so this is the one quoting rule codecall uses.
 */
export function shellQuote(value: string): string {
  if (value !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `export NAME='value'; ...` for the given variables, validating the names. */
export function shellExports(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${assertEnvName(name)}=${shellQuote(value)};`)
    .join(" ");
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Returns `name` if it is a valid environment variable name, else throws. */
export function assertEnvName(name: string): string {
  if (!ENV_NAME.test(name)) throw new TypeError(`Invalid environment variable name: ${JSON.stringify(name)}`);
  return name;
}
