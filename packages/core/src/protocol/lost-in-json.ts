/**
 * Values that JSON carries as `{}` although they hold data: a `Map`, a `Set`, a `Promise` a tool
 * forgot to await, an `Error`, a class instance whose state is private. `JSON.stringify` encodes
 * them without a word, so a careless tool's result would reach the script emptied; the dispatcher
 * refuses such a result instead, naming what and where.
 *
 * Only an object with no own enumerable property and a prototype other than `Object.prototype`
 * (or `null`) counts: an empty plain object is what it says, and an object with a `toJSON` says
 * what it stands for itself (a `Date`).
 */

/** What was found: where in the result (`$.a[0]`) and what it was (`a Map`). */
export interface LostValue {
  path: string;
  what: string;
}

/**
 * The first value in `value` (a result that `JSON.stringify` has just encoded: no cycle, depth
 * within the limits) that JSON would carry as `{}` while it holds data, or `undefined`.
 */
export function findLostInJson(value: unknown): LostValue | undefined {
  const path: (string | number)[] = [];
  const visit = (current: unknown): LostValue | undefined => {
    if (typeof current !== "object" || current === null) return undefined;
    if (typeof (current as { toJSON?: unknown }).toJSON === "function") return undefined;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        path.push(index);
        const found = visit(current[index]);
        path.pop();
        if (found) return found;
      }
      return undefined;
    }
    const keys = Object.keys(current);
    const prototype = Object.getPrototypeOf(current) as object | null;
    if (keys.length === 0 && prototype !== null && prototype !== Object.prototype && holdsData(current)) {
      return { path: showPath(path), what: describeObject(current) };
    }
    for (const key of keys) {
      path.push(key);
      const found = visit((current as Record<string, unknown>)[key]);
      path.pop();
      if (found) return found;
    }
    return undefined;
  };
  try {
    return visit(value);
  } catch {
    // A getter or a proxy that throws on a second look: the encoding stands as it was made.
    return undefined;
  }
}

/**
 * Whether an object that JSON would carry as `{}` holds something: an empty `Map`, `Set`, buffer
 * or typed array loses nothing (a non-empty typed array has its indices as properties); anything
 * else cannot be told from outside (a getter, a private field, a promise's value).
 */
function holdsData(object: object): boolean {
  if (object instanceof Map || object instanceof Set) return object.size > 0;
  if (object instanceof ArrayBuffer || ArrayBuffer.isView(object)) return object.byteLength > 0;
  return true;
}

/** `a Map`, `a Promise (was it awaited?)`, `an Error ("message")`, `an instance of Point`. */
function describeObject(object: object): string {
  if (object instanceof Promise) return "a Promise (was it awaited?)";
  if (object instanceof Error) return `an Error (${JSON.stringify(object.message)})`;
  const name = (object.constructor as { name?: unknown } | undefined)?.name;
  if (typeof name !== "string" || name === "") return "an object with no JSON properties";
  const builtIn = ["Map", "Set", "WeakMap", "WeakSet", "WeakRef", "RegExp", "ArrayBuffer", "SharedArrayBuffer", "DataView"].includes(name);
  return builtIn ? `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}` : `an instance of ${name} with no JSON properties`;
}

/** `$`, `$.a`, `$[0]`, `$["a b"]`. */
function showPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (shown, part) => shown + (typeof part === "number" ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`),
    "$",
  );
}
