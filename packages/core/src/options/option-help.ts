/**
 * A backend's options in words: one line an option for `--help`, and the same as a Markdown
 * table for its README, both from the declaration, so neither can drift from what is parsed.
 */
import type { OptionSpec, OptionSpecs, OptionType } from "./option-types.js";

/** One declared option, as help shows it. Holds no value of a secret option. */
export interface OptionDescription {
  name: string;
  type: OptionType;
  description: string;
  /** The default in words or as JSON text (strings as they are); absent when there is none. */
  default?: string;
  /** Whether the default is a value (shown as code in Markdown) rather than words. */
  defaultIsValue: boolean;
  required: boolean;
  secret: boolean;
}

/** The options of a declaration in declaration order. */
export function describeOptions(specs: OptionSpecs): OptionDescription[] {
  return Object.entries(specs).map(([name, spec]) => {
    const shown = defaultOf(spec);
    return {
      name,
      type: spec.type,
      description: spec.description,
      ...(shown === undefined ? {} : { default: shown }),
      defaultIsValue: spec.defaultText === undefined && shown !== undefined,
      required: spec.required === true,
      secret: spec.secret === true,
    };
  });
}

/** Help text: a header, then one aligned line an option (name, type, default, description). */
export function formatOptionHelp(options: readonly OptionDescription[]): string {
  const rows = [
    ["option", "type", "default", "description"],
    ...options.map((option) => [option.name, typeText(option), defaultText(option), option.description]),
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `  ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join("  ")}`.trimEnd()).join("\n");
}

/** The same as a Markdown table (defaults that are values as code). */
export function formatOptionTable(options: readonly OptionDescription[]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  const lines = ["| option | type | default | description |", "|---|---|---|---|"];
  for (const option of options) {
    const shown = option.defaultIsValue ? `\`${option.default}\`` : defaultText(option);
    lines.push(`| \`${option.name}\` | ${cell(typeText(option))} | ${cell(shown)} | ${cell(option.description)} |`);
  }
  return lines.join("\n");
}

function defaultOf(spec: OptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined || spec.secret) return undefined;
  return typeof spec.default === "string" ? spec.default : JSON.stringify(spec.default);
}

function typeText(option: OptionDescription): string {
  return option.secret ? `${option.type}, secret` : option.type;
}

function defaultText(option: OptionDescription): string {
  if (option.required) return "required";
  return option.default ?? "—";
}
