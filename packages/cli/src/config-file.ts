/**
 * The config file: `--config PATH`, or else `codecall.config.json` in the working directory when
 * there is one. It holds the options of the command line under their camelCase names (flags win)
 * and `mcpServers`. A name it does not know is refused with the closest known one, so a typo
 * (`"timout"`) is not silently ignored; values are checked where the flags' are.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { closestName } from "@codecall/core/plugin-kit";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

/** The file looked for in the working directory when no `--config` is given. */
export const DEFAULT_CONFIG_FILE = "codecall.config.json";

/** Each key a config file may hold, with the JSON type its value must have (checked further where it is used). */
const CONFIG_KEYS: Readonly<Record<string, "string" | "object" | "boolean" | "string list" | "string or string list" | "any">> = {
  $schema: "string",
  backend: "string",
  backendOptions: "object",
  transport: "string",
  timeout: "any",
  maxToolCalls: "any",
  tools: "string list",
  allowTools: "string or string list",
  builtinTools: "boolean",
  cwd: "string",
  envPassthrough: "string list",
  interpreter: "string",
  mcpServers: "object",
  requireApproval: "string or string list",
  approveAll: "boolean",
  approvalTimeout: "any",
};

/** A config file's content, and where it came from. */
export interface ConfigFile {
  /** The file read; undefined when there was none. */
  path?: string;
  values: Record<string, unknown>;
}

/** Reads `explicit` (relative to `cwd`), or `codecall.config.json` in `cwd` when it exists; `{}` when neither is given. */
export async function loadConfigFile(explicit: string | undefined, cwd: string): Promise<ConfigFile> {
  const file = path.resolve(cwd, explicit ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (explicit === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") return { values: {} };
    throw new UsageError(`Cannot read the config file ${file}: ${(error as Error).message}`, USAGE_EXIT_CODE);
  }
  let values: unknown;
  try {
    values = JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`Invalid config file ${file}: ${(error as Error).message}`, USAGE_EXIT_CODE);
  }
  if (typeof values !== "object" || values === null || Array.isArray(values))
    throw new UsageError(`Invalid config file ${file}: it must hold a JSON object`, USAGE_EXIT_CODE);
  checkKeys(values as Record<string, unknown>, file);
  return { path: file, values: values as Record<string, unknown> };
}

function checkKeys(values: Record<string, unknown>, file: string): void {
  const known = Object.keys(CONFIG_KEYS);
  for (const [key, value] of Object.entries(values)) {
    // Own keys only: `toString` or `__proto__` in a file is an unknown key, not Object's member.
    const type = Object.hasOwn(CONFIG_KEYS, key) ? CONFIG_KEYS[key] : undefined;
    if (type === undefined) {
      const closest = closestName(key, known);
      throw new UsageError(
        `${file}: unknown key ${JSON.stringify(key)}.${closest ? ` Did you mean ${JSON.stringify(closest)}?` : ""} Known keys: ${known.join(", ")}`,
        USAGE_EXIT_CODE,
      );
    }
    if (!hasType(value, type))
      throw new UsageError(`${file}: ${JSON.stringify(key)} must be a ${type}, got ${JSON.stringify(value)}`, USAGE_EXIT_CODE);
  }
}

function hasType(value: unknown, type: (typeof CONFIG_KEYS)[string]): boolean {
  switch (type) {
    case "any":
      return true;
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "string list":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    // A list, or its names comma-separated as the flag takes them.
    case "string or string list":
      return typeof value === "string" || hasType(value, "string list");
    default:
      return typeof value === type;
  }
}
