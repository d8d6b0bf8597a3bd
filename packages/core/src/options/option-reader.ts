/**
 * Reading a backend's options, which arrive as untyped JSON from the CLI (`-o key=value`, typed
 * loosely: `-o port=22` is a number, `-o user=1000` too) and from config files. Every problem is an
 * `INVALID_OPTIONS` error that names the backend and the option, raised before anything starts.
 */
import { CodecallError } from "../errors.js";
import { assertEnvName } from "../text/shell-quote.js";

export class OptionReader {
  readonly #backend: string;
  readonly #input: Readonly<Record<string, unknown>>;

  /** Checks that `raw` is an object (or absent) holding only `known` keys. */
  constructor(backend: string, raw: unknown, known: readonly string[]) {
    this.#backend = backend;
    if (raw === undefined || raw === null) raw = {};
    if (typeof raw !== "object" || Array.isArray(raw))
      throw new CodecallError("INVALID_OPTIONS", `The ${backend} backend's options must be an object`);
    this.#input = raw as Record<string, unknown>;
    const unknown = Object.keys(this.#input).filter((key) => !known.includes(key) && this.#input[key] !== undefined);
    if (unknown.length > 0) {
      throw new CodecallError(
        "INVALID_OPTIONS",
        `Unknown ${backend} option ${unknown.map((key) => JSON.stringify(key)).join(", ")}. Known: ${known.join(", ")}`,
        { details: { unknown } },
      );
    }
  }

  /** A non-empty string; numbers and booleans count as their text. */
  string(key: string): string | undefined {
    const value = this.#input[key];
    if (value === undefined) return undefined;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    if (typeof value !== "string" || value === "") this.fail(key, "must be a non-empty string");
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.#input[key];
    if (value === undefined || typeof value === "boolean") return value;
    return this.fail(key, "must be true or false");
  }

  /** A whole number within `[min, max]`; numeric strings are accepted. */
  integer(key: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const value = this.#input[key];
    if (value === undefined) return undefined;
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number !== "number" || !Number.isSafeInteger(number) || number < min || number > max) {
      const range = min === Number.MIN_SAFE_INTEGER ? "" : max === Number.MAX_SAFE_INTEGER ? ` from ${min} up` : ` from ${min} to ${max}`;
      this.fail(key, `must be a whole number${range}`);
    }
    return number as number;
  }

  /** A list of strings; one string is a one-element list (`-o bind=/data`). */
  stringList(key: string): string[] | undefined {
    const value = this.#input[key];
    if (value === undefined) return undefined;
    const list = typeof value === "string" ? [value] : value;
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string" && item !== "")) this.fail(key, "must be a list of non-empty strings");
    return [...(list as string[])];
  }

  /** Variable names (checked) to values (numbers and booleans as text). */
  env(key: string): Record<string, string> | undefined {
    const value = this.#input[key];
    if (value === undefined) return undefined;
    if (typeof value !== "object" || value === null || Array.isArray(value)) this.fail(key, "must be an object of variable names to values");
    const out: Record<string, string> = {};
    for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
      try {
        assertEnvName(name);
      } catch {
        this.fail(key, `has an invalid variable name ${JSON.stringify(name)}`);
      }
      if (typeof entry !== "string" && typeof entry !== "number" && typeof entry !== "boolean") this.fail(key, `has a non-string value for ${name}`);
      out[name] = String(entry);
    }
    return out;
  }

  /** Throws the `INVALID_OPTIONS` error for `key`. */
  fail(key: string, problem: string): never {
    throw new CodecallError("INVALID_OPTIONS", `${this.#backend} option ${key} ${problem}`, { details: { option: key } });
  }
}
