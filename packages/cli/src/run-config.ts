/**
 * The options of `codecall run` (and of `tools`, `stub` and `mcp serve`, which build a run's tools
 * and environment the same way), from the command line and the config file (`--config`, or
 * `codecall.config.json` in the working directory; flags win over the file).
 */
import { parseArgs } from "node:util";
import { MAX_DURATION_MS } from "@codecall/core";
import { assertEnvName, closestName } from "@codecall/core/plugin-kit";
import { splitBackendOption } from "./backend-options.js";
import { loadConfigFile } from "./config-file.js";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";
import { mcpServerFromFlag, mcpServersFromConfig, type McpServerEntry } from "./mcp-server-config.js";

/** What every command that runs scripts or lists their tools reads. */
export interface ToolsConfig {
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
  /** MCP servers whose tools scripts may call: the config file's `mcpServers`, then each `--mcp`. */
  mcpServers: McpServerEntry[];
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

export interface RunConfig extends ToolsConfig {
  /** Script path, or "-" for stdin. */
  script: string;
}

/** The flags every such command takes. */
const OPTIONS = {
  backend: { type: "string" },
  "backend-option": { type: "string", short: "o", multiple: true },
  transport: { type: "string" },
  timeout: { type: "string" },
  "max-tool-calls": { type: "string" },
  tools: { type: "string", multiple: true },
  mcp: { type: "string", multiple: true },
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

/** A flag a command adds to the shared ones (as `node:util`'s `parseArgs` declares it). */
export type ExtraFlags = Record<string, { type: "string" | "boolean"; short?: string }>;

/** `codecall run --help`: the usage, and the options of the backend named (local by default). */
export interface RunHelpRequest {
  help: true;
  backend: string;
}

/** Parses `run` arguments (everything after the word `run`). */
export async function parseRunArgs(args: string[], cwd: string): Promise<RunConfig | RunHelpRequest> {
  const parsed = await parseToolsArgs("run", args, cwd);
  if ("help" in parsed) return parsed;
  if (parsed.positionals.length !== 1) {
    throw new UsageError("codecall run takes exactly one script: a file path, or - to read it from stdin", USAGE_EXIT_CODE);
  }
  return { ...parsed.config, script: parsed.positionals[0]! };
}

/** A parsed command line: the shared config, the values of the command's own flags, the positionals. */
export interface ParsedToolsArgs {
  config: ToolsConfig;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * Parses the arguments of `command` (`run`, `tools`, `stub`, `mcp serve`): the shared flags,
 * `extra` flags of its own, and the config file. `--help` is answered before values are checked.
 */
export async function parseToolsArgs(
  command: string,
  args: string[],
  cwd: string,
  extra: ExtraFlags = {},
): Promise<ParsedToolsArgs | RunHelpRequest> {
  const options = { ...OPTIONS, ...extra };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(
      `${flagProblem(error as Error, Object.keys(options))}\nRun \`codecall ${command} --help\` for the options.`,
      USAGE_EXIT_CODE,
    );
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const flag = <T>(name: keyof typeof OPTIONS) => values[name] as T | undefined;
  const file = await loadConfigFile(flag<string>("config"), cwd);
  const fromFile = file.values;
  const pick = <T>(value: T | undefined, key: string): T | undefined => (value !== undefined ? value : (fromFile[key] as T | undefined));
  if (values.help) return { help: true, backend: pick(flag<string>("backend"), "backend") ?? "local" };
  const backendOptionPairs = flag<string[]>("backend-option") ?? [];
  // A malformed pair is a usage error before any backend is loaded.
  backendOptionPairs.forEach(splitBackendOption);

  const allowTools = pick(flag<string>("allow-tools"), "allowTools");
  const config: ToolsConfig = {
    backend: pick(flag<string>("backend"), "backend") ?? "local",
    backendOptions: { ...(fromFile.backendOptions as Record<string, unknown> | undefined) },
    backendOptionPairs,
    transport: pick(flag<string>("transport"), "transport") ?? "auto",
    timeoutSeconds: timeoutSeconds(pick(flag<string>("timeout"), "timeout"), "--timeout"),
    maxToolCalls: nonNegativeInteger(pick(flag<string>("max-tool-calls"), "maxToolCalls"), "--max-tool-calls"),
    toolModules: [...((fromFile.tools as string[] | undefined) ?? []), ...(flag<string[]>("tools") ?? [])],
    allowTools: allowTools === undefined ? undefined : toList(allowTools),
    builtinTools: !(flag<boolean>("no-builtin-tools") ?? fromFile.builtinTools === false),
    mcpServers: [
      ...(fromFile.mcpServers ? mcpServersFromConfig(fromFile.mcpServers as Record<string, unknown>, file.path!) : []),
      ...(flag<string[]>("mcp") ?? []).map(mcpServerFromFlag),
    ],
    cwd: nonEmpty(pick(flag<string>("cwd"), "cwd"), "--cwd", "a directory"),
    envPassthrough: [...((fromFile.envPassthrough as string[] | undefined) ?? []), ...(flag<string[]>("env-passthrough") ?? [])].map(passthroughName),
    interpreter: nonEmpty(pick(flag<string>("interpreter"), "interpreter"), "--interpreter", "a Python command"),
    json: flag<boolean>("json") ?? false,
    verbose: flag<boolean>("verbose") ?? false,
    requireApproval: [...toList(fromFile.requireApproval ?? []), ...(flag<string[]>("require-approval") ?? []).flatMap(toList)],
    approveAll: flag<boolean>("approve-all") ?? fromFile.approveAll === true,
    approvalTimeoutSeconds: timeoutSeconds(pick(flag<string>("approval-timeout"), "approvalTimeout"), "--approval-timeout"),
  };
  return { config, values, positionals: parsed.positionals };
}

/** Node's parser message, with an unknown flag's closest known one instead of its advice on positionals. */
function flagProblem(error: Error, known: readonly string[]): string {
  const unknown = (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'(-[^']*)'/.exec(error.message)?.[1] : undefined;
  if (unknown === undefined) return error.message;
  const closest = closestName(unknown.replace(/^-+/, ""), known);
  return `Unknown option ${unknown}.${closest ? ` Did you mean --${closest}?` : ""}`;
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

/** A text flag that was given must say something: an empty one would silently mean the default. */
function nonEmpty(value: string | undefined, flag: string, wanted: string): string | undefined {
  if (value !== undefined && value.trim() === "") throw new UsageError(`${flag} wants ${wanted}, got an empty string`, USAGE_EXIT_CODE);
  return value;
}

/** A variable name as a shell writes it: `--env-passthrough A=B` or "" would let nothing through, without a word. */
function passthroughName(name: string): string {
  try {
    return assertEnvName(name);
  } catch {
    throw new UsageError(
      `--env-passthrough wants a variable name (letters, digits and _, not starting with a digit), got ${JSON.stringify(name)}`,
      USAGE_EXIT_CODE,
    );
  }
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
