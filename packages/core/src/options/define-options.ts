/**
 * A backend's options, declared once — type, default, description, secret or not — and used for
 * everything: parsing what code passes, what a config file holds and the CLI's `-o` pairs (all
 * through {@link OptionSet.parse}), refusing unknown names with the closest known one, and help.
 * Every problem is an `INVALID_OPTIONS` error naming the backend and the option, raised before
 * anything starts.
 */
import { CodecallError } from "../errors.js";
import { closestName } from "./closest-name.js";
import { describeOptions, formatOptionHelp, formatOptionTable, type OptionDescription } from "./option-help.js";
import type { OptionSpecs, OptionValues } from "./option-types.js";
import { optionsFromText } from "./options-from-text.js";
import { readOption } from "./read-option.js";

/**
 * Declares the options of `backend` (its name in messages: "docker"). The declaration types the
 * parsed options: `OptionValues<typeof options>`, and what code passes: `OptionsInput<typeof options>`.
 */
export function defineOptions<D extends OptionSpecs>(backend: string, specs: D): OptionSet<D> {
  return new OptionSet(backend, specs);
}

/** The declared options of one backend (see {@link defineOptions}). */
export class OptionSet<D extends OptionSpecs = OptionSpecs> {
  /** The backend's name, as messages say it. */
  readonly backend: string;
  /** The declaration. */
  readonly specs: D;

  constructor(backend: string, specs: D) {
    this.backend = backend;
    this.specs = specs;
  }

  /**
   * Checks `raw` (an object, or absent for none) and returns the options with defaults applied.
   * Unknown names, values of the wrong type, failed checks and missing required options are refused.
   */
  parse(raw: unknown): OptionValues<D> {
    if (raw === undefined || raw === null) raw = {};
    if (typeof raw !== "object" || Array.isArray(raw))
      throw new CodecallError("INVALID_OPTIONS", `The ${this.backend} backend's options must be an object`);
    const input = raw as Record<string, unknown>;
    const unknown = Object.keys(input).filter((key) => !Object.hasOwn(this.specs, key) && input[key] !== undefined);
    if (unknown.length > 0) this.#refuseUnknown(unknown);
    const out: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(this.specs)) {
      const given = Object.hasOwn(input, name) ? input[name] : undefined;
      if (given === undefined) {
        if (spec.required) this.fail(name, "is required");
        if (spec.default !== undefined) out[name] = copyOf(spec.default);
        continue;
      }
      const value = readOption(spec, given, (problem) => this.fail(name, problem));
      const problem = spec.check?.(value as never);
      if (problem !== undefined) this.fail(name, problem);
      out[name] = value;
    }
    return out as OptionValues<D>;
  }

  /**
   * Options written as text — the CLI's `-o NAME=VALUE` pairs, as `[name, text]` entries — as the
   * values {@link parse} takes, read by each option's declared type (a string stays as written).
   * Unknown names are refused here, naming the closest known one.
   */
  fromText(entries: Iterable<readonly [string, string]>): Record<string, unknown> {
    return optionsFromText(this.specs, entries, {
      unknown: (names) => this.#refuseUnknown(names),
      fail: (name, problem) => this.fail(name, problem),
    });
  }

  /** The options in declaration order, as help shows them (no value of a secret). */
  describe(): OptionDescription[] {
    return describeOptions(this.specs);
  }

  /** One aligned line an option: name, type, default, description. */
  help(): string {
    return formatOptionHelp(this.describe());
  }

  /** The same as a Markdown table, for the backend's README. */
  markdownTable(): string {
    return formatOptionTable(this.describe());
  }

  /** Throws the `INVALID_OPTIONS` error for option `name` ("docker option memory must be ..."). */
  fail(name: Extract<keyof D, string> | (string & {}), problem: string): never {
    throw new CodecallError("INVALID_OPTIONS", `${this.backend} option ${name} ${problem}`, { details: { option: name } });
  }

  #refuseUnknown(names: readonly string[]): never {
    const known = Object.keys(this.specs);
    const named = names.map((name) => {
      const closest = closestName(name, known);
      return { name, closest, text: JSON.stringify(name) };
    });
    const [first] = named;
    const what =
      named.length === 1 && first
        ? `option ${first.text}.${first.closest === undefined ? "" : ` Did you mean ${JSON.stringify(first.closest)}?`}`
        : `options ${named.map(({ text, closest }) => (closest === undefined ? text : `${text} (did you mean ${JSON.stringify(closest)}?)`)).join(", ")}.`;
    throw new CodecallError("INVALID_OPTIONS", `Unknown ${this.backend} ${what} Known: ${known.join(", ")}`, {
      details: { unknown: [...names], suggestions: named.flatMap(({ closest }) => (closest === undefined ? [] : [closest])) },
    });
  }
}

/** A default as a fresh value, so a parsed list or map never shares the declaration's. */
function copyOf(value: unknown): unknown {
  if (Array.isArray(value)) return [...(value as unknown[])];
  if (typeof value === "object" && value !== null) return { ...value };
  return value;
}
