/**
 * A short, JSON-like description of any value for progress lines, logs and error messages. It
 * never throws and its cost is bounded by its output: hostile values (getters or `toString` that
 * throw, Proxies, cycles, 100 000 levels of nesting, a million keys) are described, not obeyed.
 */

export interface DescribeOptions {
  /** Longest description, in characters; a longer one is cut and ends in `…` (default 200). */
  maxLength?: number;
  /** Containers deeper than this are shown as `[…]` / `{…}` (default 6). */
  maxDepth?: number;
}

const DEFAULT_MAX_LENGTH = 200;
const DEFAULT_MAX_DEPTH = 6;

/** Thrown inside the walk when the budget is spent; never leaves this module. */
const FULL = Symbol("full");

class BoundedText {
  #text = "";
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Appends, or throws {@link FULL} once the text would pass the limit. */
  add(part: string): void {
    if (this.#text.length + part.length > this.#max) {
      this.#text += part.slice(0, Math.max(0, this.#max - this.#text.length));
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a private sentinel that unwinds the walk; caught below, never escapes
      throw FULL;
    }
    this.#text += part;
  }

  get text(): string {
    return this.#text;
  }
}

/** Describes `value` in at most `maxLength` characters (plus a final `…` when cut). Never throws. */
export function describeValue(value: unknown, options: DescribeOptions = {}): string {
  const out = new BoundedText(options.maxLength ?? DEFAULT_MAX_LENGTH);
  try {
    walk(value, out, options.maxDepth ?? DEFAULT_MAX_DEPTH, new Set());
  } catch (error) {
    // Every access to the value is guarded, so this is the budget running out.
    if (error === FULL) return `${out.text}…`;
  }
  return out.text;
}

function walk(value: unknown, out: BoundedText, depth: number, ancestors: Set<object>): void {
  if (typeof value === "string") {
    // Only the part that can still be shown is quoted: a 1 GB string costs nothing more.
    out.add(JSON.stringify(value.slice(0, 4096)) + (value.length > 4096 ? "…" : ""));
    return;
  }
  if (typeof value === "bigint") return out.add(`${value}n`);
  if (typeof value === "symbol") return out.add(String(value));
  if (typeof value === "function") {
    const name = guarded(() => String(value.name), "");
    return out.add(name ? `[Function ${name}]` : "[Function]");
  }
  if (typeof value !== "object" || value === null) return out.add(String(value));
  if (ancestors.has(value)) return out.add("[Circular]");
  const isArray = guarded(() => Array.isArray(value), false);
  if (depth <= 0) return out.add(isArray ? "[…]" : "{…}");
  const keys = guarded(() => (isArray ? null : Object.keys(value)), undefined);
  if (keys === undefined) return out.add("[unreadable object]");
  ancestors.add(value);
  if (keys === null) {
    const length = guarded(() => Number((value as unknown[]).length), 0);
    out.add("[");
    for (let index = 0; index < length; index += 1) {
      if (index > 0) out.add(",");
      walkMember(() => (value as unknown[])[index], out, depth, ancestors);
    }
    out.add("]");
  } else {
    out.add("{");
    for (const [index, key] of keys.entries()) {
      if (index > 0) out.add(",");
      out.add(`${JSON.stringify(key.slice(0, 4096))}:`);
      walkMember(() => (value as Record<string, unknown>)[key], out, depth, ancestors);
    }
    out.add("}");
  }
  ancestors.delete(value);
}

function walkMember(read: () => unknown, out: BoundedText, depth: number, ancestors: Set<object>): void {
  let member: unknown;
  try {
    member = read();
  } catch {
    return out.add("[unreadable]");
  }
  walk(member, out, depth - 1, ancestors);
}

function guarded<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}
