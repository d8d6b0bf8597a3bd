/**
 * The options of `codecall run`, from the command line and an optional JSON config file (flags
 * win over the file).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { MAX_DURATION_MS } from "@codecall/core";
import { splitBackendOption } from "./backend-options.js";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

export interface RunConfig {
  /** Script path, or "-" for stdin. */
  script: string;
  backend: string;
  /** The config file's `backendOptions`. */
  backendOptions: Record<string, unknown>;
  /** The `-o KEY=VALUE` pairs, read once the backend is loaded (by its declared option types). */
  backendOptionPairs: string[];
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
  /** Tools whose every call needs approval (`--require-approval`). */
  requireApproval: string[];
  /** Approve every call that needs approval without asking (`--approve-all`). */
  approveAll: boolean;
  /** Longest wait for one approval (`--approval-timeout`). */
  approvalTimeoutSeconds?: number;
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
  help: { type: "boolean", short: "h" },
  verbose: { type: "boolean", short: "v" },
  "require-approval": { type: "string", multiple: true },
  "approve-all": { type: "boolean" },
  "approval-timeout": { type: "string" },
} as const;

/** `codecall run --help`: the usage, and the options of the backend named (local by default). */
export interface RunHelpRequest {
  help: true;
  backend: string;
}

/** Parses `run` arguments (everything after the word `run`). */
export async function parseRunArgs(args: string[], cwd: string): Promise<RunConfig | RunHelpRequest> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun \`codecall --help\` for the options.`, USAGE_EXIT_CODE);
  }
  const { values, positionals } = parsed;
  const file = values.config ? await readConfigFile(path.resolve(cwd, values.config)) : {};
  const pick = <T>(flag: T | undefined, key: string): T | undefined => (flag !== undefined ? flag : (file[key] as T | undefined));
  if (values.help) return { help: true, backend: pick(values.backend, "backend") ?? "local" };
  if (positionals.length !== 1) {
    throw new UsageError("codecall run takes exactly one script: a file path, or - to read it from stdin", USAGE_EXIT_CODE);
  }
  const backendOptionPairs = values["backend-option"] ?? [];
  // A malformed pair is a usage error before any backend is loaded.
  backendOptionPairs.forEach(splitBackendOption);

  const allowTools = pick(values["allow-tools"], "allowTools");
  return {
    script: positionals[0]!,
    backend: pick(values.backend, "backend") ?? "local",
    backendOptions: { ...(file.backendOptions as Record<string, unknown> | undefined) },
    backendOptionPairs,
    transport: pick(values.transport, "transport") ?? "auto",
    timeoutSeconds: timeoutSeconds(pick(values.timeout, "timeout"), "--timeout"),
    maxToolCalls: nonNegativeInteger(pick(values["max-tool-calls"], "maxToolCalls"), "--max-tool-calls"),
    toolModules: [...((file.tools as string[] | undefined) ?? []), ...(values.tools ?? [])],
    allowTools: allowTools === undefined ? undefined : toList(allowTools),
    builtinTools: !(values["no-builtin-tools"] ?? file.builtinTools === false),
    cwd: pick(values.cwd, "cwd"),
    envPassthrough: [...((file.envPassthrough as string[] | undefined) ?? []), ...(values["env-passthrough"] ?? [])],
    interpreter: pick(values.interpreter, "interpreter"),
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    requireApproval: [...toList(file.requireApproval ?? []), ...(values["require-approval"] ?? []).flatMap(toList)],
    approveAll: values["approve-all"] ?? file.approveAll === true,
    approvalTimeoutSeconds: timeoutSeconds(pick(values["approval-timeout"], "approvalTimeout"), "--approval-timeout"),
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

const MAX_TIMEOUT_SECONDS = MAX_DURATION_MS / 1000;

/** Seconds from 0.001 up to core's longest limit (365 days); anything else is a usage error naming `flag`. */
function timeoutSeconds(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = numberIn(value);
  if (number === undefined || !(number >= 0.001 && number <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `${flag} wants a number of seconds from 0.001 to ${MAX_TIMEOUT_SECONDS} (365 days), got ${describe(value)}`,
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
