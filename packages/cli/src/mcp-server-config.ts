/**
 * MCP servers as the CLI takes them: `--mcp "COMMAND ARGS..."` or `--mcp URL` (repeatable), and a
 * config file's `mcpServers`, in the shape MCP clients (desktop apps, IDEs) use:
 *
 *   "mcpServers": {
 *     "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "..." } },
 *     "docs": { "url": "http://127.0.0.1:8000/mcp" }
 *   }
 *
 * A config entry's key is the prefix of its tools' names (`github_get_issue`) unless it says
 * `"prefix"` (`""` for none); servers from `--mcp` get none. Checked here, before anything starts.
 */
import { closestName } from "@codecall/core/plugin-kit";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";

/** One server to connect to, as `@codecall/mcp`'s `connectMcpServer` takes it, and the prefix of its tools. */
export interface McpServerEntry {
  /** The config key, or the `--mcp` value. */
  label: string;
  prefix?: string;
  spec: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string } | { url: string; headers?: Record<string, string> };
}

const ENTRY_KEYS = ["type", "command", "args", "env", "cwd", "url", "headers", "prefix"];
const TRANSPORT_TYPES = ["stdio", "http", "streamable-http", "streamableHttp"];

/** The servers of a config file's `mcpServers`, in file order. */
export function mcpServersFromConfig(value: Record<string, unknown>, file: string): McpServerEntry[] {
  return Object.entries(value).map(([name, entry]) => {
    const where = `${file}: mcpServers.${name}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw usage(`${where} must be an object with "command" or "url"`);
    const fields = entry as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!ENTRY_KEYS.includes(key)) {
        const closest = closestName(key, ENTRY_KEYS);
        throw usage(
          `${where}: unknown key ${JSON.stringify(key)}.${closest ? ` Did you mean ${JSON.stringify(closest)}?` : ""} Known keys: ${ENTRY_KEYS.join(", ")}`,
        );
      }
    }
    if (fields.type !== undefined && !TRANSPORT_TYPES.includes(fields.type as string)) {
      throw usage(`${where}: type ${JSON.stringify(fields.type)} is not supported; use a "command" (stdio) or a "url" (Streamable HTTP)`);
    }
    const prefix = fields.prefix === undefined ? name : stringField(fields.prefix, `${where}.prefix`);
    const label = name;
    if (typeof fields.url === "string" && fields.command === undefined) {
      return { label, prefix, spec: { url: checkedUrl(fields.url, where), ...optional("headers", stringMap(fields.headers, `${where}.headers`)) } };
    }
    if (typeof fields.command !== "string" || fields.command === "" || fields.url !== undefined)
      throw usage(`${where} needs either a "command" or a "url"`);
    return {
      label,
      prefix,
      spec: {
        command: fields.command,
        ...optional("args", stringList(fields.args, `${where}.args`)),
        ...optional("env", stringMap(fields.env, `${where}.env`)),
        ...optional("cwd", fields.cwd === undefined ? undefined : stringField(fields.cwd, `${where}.cwd`)),
      },
    };
  });
}

/** A `--mcp` value: a URL (Streamable HTTP) or a command line, split into words as a shell would (quotes, backslashes). */
export function mcpServerFromFlag(value: string): McpServerEntry {
  if (/^https?:\/\//.test(value)) return { label: value, spec: { url: checkedUrl(value, "--mcp") } };
  const [command, ...args] = splitWords(value);
  if (command === undefined) throw usage(`--mcp wants a command that starts an MCP server, or its URL; got ${JSON.stringify(value)}`);
  return { label: value, spec: { command, args } };
}

/** Words of a command line: whitespace separates, single and double quotes group, a backslash escapes. No expansion. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && index + 1 < line.length) word = (word ?? "") + line[++index];
      else word = (word ?? "") + char;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (char === "\\" && index + 1 < line.length) {
      word = (word ?? "") + line[++index];
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote) throw usage(`--mcp: unclosed ${quote} in ${JSON.stringify(line)}`);
  if (word !== undefined) words.push(word);
  return words;
}

function checkedUrl(value: string, where: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // Reported below.
  }
  throw usage(`${where}: ${JSON.stringify(value)} is not an http(s) URL`);
}

function stringField(value: unknown, where: string): string {
  if (typeof value !== "string") throw usage(`${where} must be a string`);
  return value;
}

function stringList(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw usage(`${where} must be a list of strings`);
  return value;
}

function stringMap(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.values(value).every((item) => typeof item === "string")) {
    throw usage(`${where} must be an object of strings`);
  }
  return value as Record<string, string>;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function usage(message: string): UsageError {
  return new UsageError(message, USAGE_EXIT_CODE);
}
