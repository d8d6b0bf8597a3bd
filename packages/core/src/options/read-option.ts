/**
 * The value rules of declared options. Values arrive as JSON from code and config files, and typed
 * loosely from the CLI, so numbers and booleans count as text for strings and numeric strings as
 * numbers; booleans stay strict (`"yes"` is refused, not guessed).
 */
import { assertEnvName } from "../text/shell-quote.js";
import type { OptionSpec } from "./option-types.js";

/** Says what is wrong with a value: the end of a sentence that starts with the option's name. */
export type ReportProblem = (problem: string) => never;

/** `value` (not undefined) read by the rules of `spec`'s type; `fail` is called with what is wrong. */
export function readOption(spec: OptionSpec, value: unknown, fail: ReportProblem): unknown {
  switch (spec.type) {
    case "string":
      return readString(value, fail);
    case "boolean":
      if (typeof value !== "boolean") fail("must be true or false");
      return value;
    case "integer":
      return readInteger(value, spec.min, spec.max, fail);
    case "number": {
      const number = numberIn(value);
      if (number === undefined) fail("must be a number");
      return number;
    }
    case "list": {
      const list = typeof value === "string" ? [value] : value;
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string" && item !== "")) fail("must be a list of non-empty strings");
      return [...(list as string[])];
    }
    case "env":
      return readMap(value, "variable names", fail, (name) => {
        try {
          assertEnvName(name);
        } catch {
          fail(`has an invalid variable name ${JSON.stringify(name)}`);
        }
      });
    case "map":
      return readMap(value, "names", fail);
    case "boolean|string":
      return typeof value === "boolean" ? value : readString(value, () => fail("must be true, false or a non-empty string"));
  }
}

function readString(value: unknown, fail: ReportProblem): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string" || value === "") fail("must be a non-empty string");
  return value;
}

function readInteger(value: unknown, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, fail: ReportProblem): number {
  const number = numberIn(value);
  if (number === undefined || !Number.isSafeInteger(number) || number < min || number > max) {
    const range = min === Number.MIN_SAFE_INTEGER ? "" : max === Number.MAX_SAFE_INTEGER ? ` from ${min} up` : ` from ${min} to ${max}`;
    fail(`must be a whole number${range}`);
  }
  return number;
}

/** A finite number, or a string that is one (`"22"` from a config file). */
function numberIn(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

/** Names to text values (numbers and booleans as text); an undefined value leaves its name out (`process.env` may hold some). */
function readMap(value: unknown, keys: string, fail: ReportProblem, checkName?: (name: string) => void): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`must be an object of ${keys} to values`);
  const out: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    checkName?.(name);
    if (entry === undefined) continue;
    if (typeof entry !== "string" && typeof entry !== "number" && typeof entry !== "boolean")
      fail(`has a non-string value for ${JSON.stringify(name)}`);
    out[name] = String(entry);
  }
  return out;
}
