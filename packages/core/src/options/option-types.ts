/**
 * The vocabulary of a backend's option declaration: what one option may be declared as, and the
 * TypeScript types a declaration gives — the options a caller passes in code, and the parsed
 * options (defaults applied) the backend works with.
 */

/** What every declared option says about itself, whatever its type. */
interface OptionBase<T> {
  /** One line for `--help` and the README's table. */
  description: string;
  /** The value when the option is not given; shown as the default. */
  default?: T;
  /** The default in words, when the backend works it out itself ("the local user"); shown, never applied. */
  defaultText?: string;
  /** The option must be given. */
  required?: true;
  /** A credential: help shows no value of it, and no message quotes it. */
  secret?: true;
  /**
   * A further rule on a value of the right type: returns what is wrong with it, as the end of a
   * sentence that starts with the option's name ("must be an absolute path"), or undefined. A
   * check of a secret option must not quote the value.
   */
  check?: (value: T) => string | undefined;
}

/** A non-empty string; numbers and booleans count as their text (`-o user=1000`). */
export interface StringOption extends OptionBase<string> {
  type: "string";
}

/** `true` or `false`, nothing else. */
export interface BooleanOption extends OptionBase<boolean> {
  type: "boolean";
}

/** A whole number within `[min, max]`; numeric strings are accepted. */
export interface IntegerOption extends OptionBase<number> {
  type: "integer";
  min?: number;
  max?: number;
}

/** A finite number; numeric strings are accepted. */
export interface NumberOption extends OptionBase<number> {
  type: "number";
}

/** A list of non-empty strings; one string is a one-element list (`-o bind=/data`). */
export interface ListOption extends OptionBase<readonly string[]> {
  type: "list";
}

/** Environment variables: checked names to values (numbers and booleans as text). */
export interface EnvOption extends OptionBase<Readonly<Record<string, string>>> {
  type: "env";
}

/** Names to text values (labels, mount options); entries whose value is undefined are left out. */
export interface MapOption extends OptionBase<Readonly<Record<string, string>>> {
  type: "map";
}

/** `true`, `false`, or a non-empty string (an SSH agent: `true` for the default one, or its socket path). */
export interface BooleanOrStringOption extends OptionBase<boolean | string> {
  type: "boolean|string";
}

/** One declared option. */
export type OptionSpec = StringOption | BooleanOption | IntegerOption | NumberOption | ListOption | EnvOption | MapOption | BooleanOrStringOption;

/** The type names of {@link OptionSpec}, as help prints them. */
export type OptionType = OptionSpec["type"];

/** A backend's options, by name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The parsed value of one declared option. */
export type OptionValue<S extends OptionSpec> = S extends { type: "string" }
  ? string
  : S extends { type: "boolean" }
    ? boolean
    : S extends { type: "integer" | "number" }
      ? number
      : S extends { type: "list" }
        ? string[]
        : S extends { type: "env" | "map" }
          ? Record<string, string>
          : S extends { type: "boolean|string" }
            ? boolean | string
            : never;

/** What a caller may pass for one declared option in code. */
export type OptionInput<S extends OptionSpec> = S extends { type: "list" }
  ? readonly string[]
  : S extends { type: "env" }
    ? Readonly<Record<string, string>>
    : S extends { type: "map" }
      ? Readonly<Record<string, string | undefined>>
      : OptionValue<S>;

/** Names of the options that always have a value once parsed: given a default, or required. */
type SettledNames<D extends OptionSpecs> = { [K in keyof D]: D[K] extends { default: unknown } | { required: true } ? K : never }[keyof D];

/** Names of the options a caller must give. */
type RequiredNames<D extends OptionSpecs> = { [K in keyof D]: D[K] extends { required: true } ? K : never }[keyof D];

/** Flattens an intersection, so editors show one object type. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The parsed options of declaration `D`: defaults applied, optional the ones without a default. */
export type OptionValues<D extends OptionSpecs> = Flatten<
  { [K in keyof D as K extends SettledNames<D> ? K : never]: OptionValue<D[K]> } & {
    [K in keyof D as K extends SettledNames<D> ? never : K]?: OptionValue<D[K]>;
  }
>;

/** The options of declaration `D` as a caller passes them in code. */
export type OptionsInput<D extends OptionSpecs> = Flatten<
  { [K in keyof D as K extends RequiredNames<D> ? K : never]: OptionInput<D[K]> } & {
    [K in keyof D as K extends RequiredNames<D> ? never : K]?: OptionInput<D[K]>;
  }
>;
