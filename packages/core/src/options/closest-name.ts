/**
 * The known name a mistyped one most likely meant, for "Did you mean ...?" in option errors:
 * the closest by edit distance (a swap of two neighbours counts as one edit, case is ignored), when
 * it is close enough to be a typo rather than another word.
 */

/** The name in `known` closest to `name`, or undefined when none is within a typo's reach. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  // One edit in three letters: "imgae" finds "image", "foo" finds nothing in "cwd, env, shell".
  const reach = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = reach + 1;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  // rows[i][j]: distance between the first i letters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i]!;
      const above = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
