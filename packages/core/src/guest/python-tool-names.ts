/**
 * Names for tools that come from elsewhere — an MCP server's `get-issue`, an AI SDK tool set's
 * `search.web` — so a script can import them. The rule is deterministic (the same list of names
 * always maps the same way) and collision-free within one list, and it leaves names that already
 * follow {@link TOOL_NAME_RULE} unchanged:
 *
 * 1. accents are dropped (`café` → `cafe`), then every character outside `A-Z a-z 0-9 _` becomes
 *    `_`, runs of `_` become one, and `_` at either end is dropped (`get-issue` → `get_issue`);
 * 2. a name that does not then start with a letter gets `tool_` in front (`3d` → `tool_3d`,
 *    `""` → `tool`);
 * 3. a Python keyword or builtin, or a name the stub module defines, gets `_tool` appended
 *    (`print` → `print_tool`, `class` → `class_tool`);
 * 4. a name already given to an earlier tool in the list (or to its `_async` twin, or reserved)
 *    gets `_2`, `_3`, … appended: the first of two colliding tools keeps the plain name.
 *
 * The prefix (`mcpTools(client, { prefix: "github" })`) is joined with `_` before the rule runs.
 */
import { CodecallError } from "../errors.js";
import { PYTHON_BUILTINS, PYTHON_KEYWORDS, STUB_MODULE_NAMES, toolNameProblem } from "./python-names.js";

export interface PythonToolNameOptions {
  /** Joined in front with `_` (`github` + `get-issue` → `github_get_issue`). */
  prefix?: string;
  /** Names already taken by other tools of the run: a mapped name never equals one of them or its `_async` twin. */
  reserved?: Iterable<string>;
}

/** The async twin the stub module defines beside every tool. */
const ASYNC_SUFFIX = "_async";

/**
 * Maps `names` to importable, distinct tool names by the rule above, in order: the result's
 * `i`-th entry is the name for `names[i]`.
 */
export function pythonToolNames(names: readonly string[], options: PythonToolNameOptions = {}): string[] {
  const taken = new Set<string>();
  for (const name of options.reserved ?? []) {
    taken.add(name);
    taken.add(`${name}${ASYNC_SUFFIX}`);
  }
  return names.map((name) => {
    const base = pythonToolName(options.prefix ? `${options.prefix}_${name}` : name);
    let candidate = base;
    for (let suffix = 2; !isFree(candidate, taken); suffix += 1) candidate = `${base}_${suffix}`;
    taken.add(candidate);
    taken.add(`${candidate}${ASYNC_SUFFIX}`);
    return candidate;
  });
}

/** Rules 1–3 for one name (no collision handling): what `name` is called in the stub module. */
export function pythonToolName(name: string): string {
  let mapped = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  if (!/^[A-Za-z]/.test(mapped)) mapped = mapped === "" ? "tool" : `tool_${mapped}`;
  if (PYTHON_KEYWORDS.has(mapped) || PYTHON_BUILTINS.has(mapped) || STUB_MODULE_NAMES.has(mapped)) mapped = `${mapped}_tool`;
  const problem = toolNameProblem(mapped);
  // Unreachable by construction; a guard so a future change to the rule cannot hand out a refused name.
  if (problem) throw new CodecallError("INVALID_TOOL", `Tool name ${JSON.stringify(name)} maps to ${mapped}, which is refused: ${problem}`);
  return mapped;
}

/** Free when neither it nor its async twin is taken. */
function isFree(candidate: string, taken: ReadonlySet<string>): boolean {
  return !taken.has(candidate) && !taken.has(`${candidate}${ASYNC_SUFFIX}`);
}
