/**
 * The options of `codecall run`, from the command line and an optional JSON config file (flags
 * win over the file).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { MAX_DURATION_MS } from "@codecall/core";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

export interface RunConfig {
  /** Script path, or "-" for stdin. */
  script: string;
  backend: string;
  backendOptions: Record<string, unknown>;
  transport: string;
  timeoutSeconds?: number;
  maxToolCalls?: number;
  toolModules: string[];
  allowTools?: string[];
  builtinTools: boolean;
  cwd?: string;
  envPassthrough: string[];
  interpreter?: string;
  json: boolean;
  verbose: boolean;
}

const OPTIONS = {
  backend: { type: "string" },
  "backend-option": { type: "string", short: "o", multiple: true },
  transport: { type: "string" },
  timeout: { type: "string" },
  "max-tool-calls": { type: "string" },
  tools: { type: "string", multiple: true },
  "allow-tools": { type: "string" },
  "no-builtin-tools": { type: "boolean" },
  cwd: { type: "string" },
  "env-passthrough": { type: "string", multiple: true },
  interpreter: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
} as const;

/** Parses `run` arguments (everything after the word `run`). */
export async function parseRunArgs(args: string[], cwd: string): Promise<RunConfig> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun \`codecall --help\` for the options.`, USAGE_EXIT_CODE);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new UsageError("codecall run takes exactly one script: a file path, or - to read it from stdin", USAGE_EXIT_CODE);
  }
  const file = values.config ? await readConfigFile(path.resolve(cwd, values.config)) : {};
  const pick = <T>(flag: T | undefined, key: string): T | undefined => (flag !== undefined ? flag : (file[key] as T | undefined));

  const allowTools = pick(values["allow-tools"], "allowTools");
  return {
    script: positionals[0]!,
    backend: pick(values.backend, "backend") ?? "local",
    backendOptions: { ...(file.backendOptions as Record<string, unknown> | undefined), ...parseBackendOptions(values["backend-option"] ?? []) },
    transport: pick(values.transport, "transport") ?? "auto",
    timeoutSeconds: timeoutSeconds(pick(values.timeout, "timeout")),
    maxToolCalls: nonNegativeInteger(pick(values["max-tool-calls"], "maxToolCalls"), "--max-tool-calls"),
    toolModules: [...((file.tools as string[] | undefined) ?? []), ...(values.tools ?? [])],
    allowTools: allowTools === undefined ? undefined : toList(allowTools),
    builtinTools: !(values["no-builtin-tools"] ?? file.builtinTools === false),
    cwd: pick(values.cwd, "cwd"),
    envPassthrough: [...((file.envPassthrough as string[] | undefined) ?? []), ...(values["env-passthrough"] ?? [])],
    interpreter: pick(values.interpreter, "interpreter"),
    json: values.json ?? false,
    verbose: values.verbose ?? false,
  };
}

async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`Cannot read the config file ${file}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("it must hold a JSON object");
    return value as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`Invalid config file ${file}: ${(error as Error).message}`);
  }
}

/** `key=value` pairs into an object; dotted keys nest, values are typed when they look typed. */
export function parseBackendOptions(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw new UsageError(`--backend-option wants KEY=VALUE, got ${JSON.stringify(pair)}`, USAGE_EXIT_CODE);
    const keys = pair.slice(0, equals).split(".");
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      target = (typeof next === "object" && next !== null ? next : (target[key] = {})) as Record<string, unknown>;
    }
    target[keys.at(-1)!] = typedValue(pair.slice(equals + 1));
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

const MAX_TIMEOUT_SECONDS = MAX_DURATION_MS / 1000;

/** Seconds from 0.001 up to core's longest limit (365 days); anything else is a usage error. */
function timeoutSeconds(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const number = numberIn(value);
  if (number === undefined || !(number >= 0.001 && number <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `--timeout wants a number of seconds from 0.001 to ${MAX_TIMEOUT_SECONDS} (365 days), got ${describe(value)}`,
      USAGE_EXIT_CODE,
    );
  }
  return number;
}

function nonNegativeInteger(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = numberIn(value);
  if (number === undefined || !Number.isSafeInteger(number) || number < 0)
    throw new UsageError(`${flag} wants a whole number, got ${describe(value)}`, USAGE_EXIT_CODE);
  return number;
}

/**
 * A JSON number, or a string written as a plain decimal number ("90", "1.5", "2e3"). `Number()`
 * alone would take "", " ", "0x10" and `true` too.
 */
function numberIn(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || !/^\s*[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) return undefined;
  return Number(value);
}

/** A flag's value as the user wrote it; strings from a config file quoted when they need to be. */
function describe(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

function toList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}
