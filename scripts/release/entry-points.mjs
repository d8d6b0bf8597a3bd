// The public entry points of a package, read from its exports map: what a stranger can import,
// and where TypeScript finds each one's types.

/**
 * Every entry point of `manifest` that has types (so not `./package.json`), as the specifier a
 * stranger imports (`@codecall/core/plugin-kit`), its subpath (`./plugin-kit`) and its types file.
 * @param {{ name: string, exports?: Record<string, unknown> }} manifest
 * @returns {Array<{ specifier: string, subpath: string, types: string }>}
 */
export function entryPoints(manifest) {
  return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const types = typeof target === "object" && target !== null ? target.types : undefined;
    if (typeof types !== "string") return [];
    return [{ specifier: subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}`, subpath, types }];
  });
}

/**
 * Problems TypeScript's legacy `moduleResolution: node10` would have: it ignores the exports map, so
 * every entry point besides `.` needs a `typesVersions` mapping to its types (`.` has `types`).
 * @param {Record<string, any>} manifest
 * @returns {string[]}
 */
export function typesVersionsProblems(manifest) {
  const mappings = manifest.typesVersions?.["*"] ?? {};
  return entryPoints(manifest)
    .filter(({ subpath }) => subpath !== ".")
    .filter(({ subpath, types }) => !(mappings[subpath.slice(2)] ?? []).includes(types))
    .map(({ subpath, types }) => `typesVersions["*"]["${subpath.slice(2)}"] must list ${types} (TypeScript's node10 resolution ignores exports)`);
}
