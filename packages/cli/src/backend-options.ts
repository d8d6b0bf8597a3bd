/**
 * A backend's options as the CLI gathers them: a config file's `backendOptions`, with the
 * `-o NAME=VALUE` pairs over them. A backend that declares its options (`environmentOptions`) reads
 * the pairs by their declared types and refuses an unknown name at once, with the closest known
 * one; for a plugin that declares none, values are typed by their look and dotted names nest.
 */
import type { BackendPlugin } from "@codecall/core";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

/** `KEY=VALUE` as `[KEY, VALUE]`; anything else is a usage error. */
export function splitBackendOption(pair: string): [string, string] {
  const equals = pair.indexOf("=");
  if (equals <= 0) throw new UsageError(`--backend-option wants KEY=VALUE, got ${JSON.stringify(pair)}`, USAGE_EXIT_CODE);
  return [pair.slice(0, equals), pair.slice(equals + 1)];
}

/** The options `plugin` is created with: `fromFile`, then the `-o` pairs. */
export function backendOptionsFor(
  plugin: BackendPlugin,
  fromFile: Readonly<Record<string, unknown>>,
  pairs: readonly string[],
): Record<string, unknown> {
  const fromFlags = plugin.environmentOptions ? plugin.environmentOptions.fromText(pairs.map(splitBackendOption)) : parseBackendOptions(pairs);
  return { ...fromFile, ...fromFlags };
}

/** For a plugin that declares no options: `key=value` pairs into an object; dots nest, values are typed when they look typed. */
export function parseBackendOptions(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const [key, text] = splitBackendOption(pair);
    const keys = key.split(".");
    let target = out;
    for (const part of keys.slice(0, -1)) {
      const next = target[part];
      target = (typeof next === "object" && next !== null ? next : (target[part] = {})) as Record<string, unknown>;
    }
    target[keys.at(-1)!] = typedValue(text);
  }
  return out;
}

function typedValue(raw: string): unknown {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (/^[[{"]/.test(raw)) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}
