/**
 * The parts of codecall that write debug lines, and how `CODECALL_DEBUG` selects them.
 */

/**
 * - `transport`: the candidates, which support the environment, the one chosen, fallbacks and why
 * - `env`: the variable names the env policy kept from the script, and why (never their values)
 * - `rpc`: each tool call (id, tool, duration, outcome, sizes; never argument values), refused frames
 * - `backend`: the commands backends run (cwd, names of the variables set), connection events
 */
export const DEBUG_NAMESPACES = ["transport", "env", "rpc", "backend"] as const;

export type DebugNamespace = (typeof DEBUG_NAMESPACES)[number];

/** What a `CODECALL_DEBUG` value selects. */
export interface DebugSelection {
  enabled: ReadonlySet<DebugNamespace>;
  /** Words that name no namespace (reported once, so a typo does not pass unnoticed). */
  unknown: string[];
}

/** Words that enable every namespace. */
const ALL = new Set(["*", "all"]);

/** The prefix debug lines carry, accepted on a word too (`codecall:rpc`, `codecall:*`). */
const LINE_PREFIX = "codecall:";

/**
 * Reads a `CODECALL_DEBUG` value: namespaces separated by commas and/or spaces, `*` or `all` for
 * every one; case does not matter. Unset or empty enables nothing.
 */
export function parseDebugNamespaces(value: string | undefined): DebugSelection {
  const enabled = new Set<DebugNamespace>();
  const unknown: string[] = [];
  for (const word of (value ?? "").split(/[\s,]+/)) {
    if (word === "") continue;
    const lower = word.toLowerCase();
    const name = lower.startsWith(LINE_PREFIX) ? lower.slice(LINE_PREFIX.length) : lower;
    if (ALL.has(name)) DEBUG_NAMESPACES.forEach((namespace) => enabled.add(namespace));
    else if (isDebugNamespace(name)) enabled.add(name);
    else unknown.push(word);
  }
  return { enabled, unknown };
}

function isDebugNamespace(name: string): name is DebugNamespace {
  return (DEBUG_NAMESPACES as readonly string[]).includes(name);
}
