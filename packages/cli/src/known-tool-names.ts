/**
 * Flags that name tools (`--allow-tools`, `--require-approval`) are checked against the tool set:
 * a misspelt name would otherwise allow (or guard) nothing, and the script's calls would be
 * refused, or run unasked, with no word about the flag.
 */
import type { ToolDefinition } from "@codecall/core";
import { closestName } from "@codecall/core/plugin-kit";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

/** Throws a usage error naming `flag`, the unknown names (with the closest known one) and the tools, when `names` holds a name no tool in `tools` has. */
export function assertKnownToolNames(flag: string, tools: readonly ToolDefinition[], names: readonly string[]): void {
  const known = tools.map((tool) => tool.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const described = unknown.map((name) => {
    const closest = closestName(name, known);
    return closest ? `${name} (did you mean ${closest}?)` : name;
  });
  throw new UsageError(`${flag} names unknown tools: ${described.join(", ")}. Tools: ${[...known].sort().join(", ")}`, USAGE_EXIT_CODE);
}
