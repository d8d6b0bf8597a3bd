/**
 * A plugin given as a file path (`./my-backend.js`) means the caller's file, as it does to the CLI.
 * A plain `import()` here would take it from this package's own directory (`node_modules/@codecall/
 * core/dist/`), where it never is; so the resolver's default importer takes it from the working
 * directory. Runtime-neutral: the directory comes from `process.cwd()` (Node, Bun) or `Deno.cwd()`.
 */

interface CwdGlobals {
  process?: { cwd?: () => string };
  Deno?: { cwd?: () => string };
}

/** True for a specifier that names a file rather than a package: `./x`, `../x`, `/x`, `file:`. */
export function isModulePath(specifier: string): boolean {
  return /^\.\.?(\/|$)/.test(specifier) || specifier.startsWith("/") || specifier.startsWith("file:");
}

/**
 * `specifier` as a `file:` URL against the working directory; as given where the runtime has none
 * (or denies it), and for a `file:` URL.
 */
export function moduleUrlFromWorkingDirectory(specifier: string): string {
  if (specifier.startsWith("file:")) return specifier;
  const globals = globalThis as CwdGlobals;
  let cwd: string | undefined;
  try {
    cwd = globals.process?.cwd?.() ?? globals.Deno?.cwd?.();
  } catch {
    // No permission to read it (Deno without --allow-read): import() gets the specifier as written.
  }
  if (cwd === undefined && !specifier.startsWith("/")) return specifier;
  const url = new URL("file:///");
  // The pathname setter escapes `#`, `?` and spaces and resolves `.`/`..` segments; `%` it keeps
  // as it is, so that one is escaped here.
  url.pathname = (specifier.startsWith("/") ? specifier : `${cwd}/${specifier}`).replaceAll("%", "%25");
  return url.href;
}
