/**
 * The env of the process codecall runs in (where the embedder and its tools hold their secrets),
 * read without `node:*` imports so core stays runtime-neutral.
 */

interface HostGlobals {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { toObject(): Record<string, string> } };
}

/**
 * The running process's env: `process.env` on Node and Bun, `Deno.env` on Deno (empty when Deno
 * was not given `--allow-env`), empty on runtimes that have neither.
 */
export function readHostEnv(): Record<string, string | undefined> {
  const globals = globalThis as HostGlobals;
  try {
    if (globals.process?.env) return { ...globals.process.env };
    if (globals.Deno?.env) return globals.Deno.env.toObject();
  } catch {
    // A runtime that denies env access has nothing to pass through or to mask.
  }
  return {};
}
