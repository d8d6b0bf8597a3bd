/**
 * Options written as text, as the CLI's `-o NAME=VALUE` pairs give them, turned into the values
 * a declaration parses: the declared type says what the text is, so `-o name=007` stays the string
 * "007" and `-o password=1e5` is not read as a number. Lists take a JSON list or one item per pair
 * (`-o binds=/a -o binds=/b`); maps take `NAME.KEY=VALUE` per entry or a JSON object.
 */
import type { OptionSpecs } from "./option-types.js";

/** How the caller reports a name it does not know and a value that cannot be read. */
export interface TextProblems {
  unknown(names: readonly string[]): never;
  fail(name: string, problem: string): never;
}

/** `[name, text]` entries (a name may be `map.key`) as option values, by declared type. */
export function optionsFromText(specs: OptionSpecs, entries: Iterable<readonly [string, string]>, problems: TextProblems): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, text] of entries) {
    const dot = key.indexOf(".");
    const name = dot < 0 ? key : key.slice(0, dot);
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) problems.unknown([name]);
    if (spec.type === "env" || spec.type === "map") {
      const entries =
        dot < 0 ? jsonText(text, "{", () => problems.fail(name, `takes ${name}.KEY=VALUE pairs or a JSON object`)) : { [key.slice(dot + 1)]: text };
      out[name] = { ...(out[name] as object | undefined), ...(entries as object) };
      continue;
    }
    if (dot >= 0) problems.fail(name, `is not a map: write ${name}=VALUE, not ${key}=VALUE`);
    if (spec.type === "list") {
      const items = text.startsWith("[") ? jsonText(text, "[", () => problems.fail(name, "takes one item a pair or a JSON list of strings")) : [text];
      out[name] = [...((out[name] as unknown[] | undefined) ?? []), ...(items as unknown[])];
    } else if ((spec.type === "boolean" || spec.type === "boolean|string") && (text === "true" || text === "false")) {
      out[name] = text === "true";
    } else {
      // Strings stay as written; numbers are read from their text when the options are parsed.
      out[name] = text;
    }
  }
  return out;
}

/** `text` parsed as JSON when it starts with `opening` and parses to that kind of value; else `refuse()`. */
function jsonText(text: string, opening: "[" | "{", refuse: () => never): unknown {
  if (!text.startsWith(opening)) refuse();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse();
  }
  if (opening === "[" ? !Array.isArray(value) : typeof value !== "object" || value === null || Array.isArray(value)) refuse();
  return value;
}
