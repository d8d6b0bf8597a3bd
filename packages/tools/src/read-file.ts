/**
 * `read_file`: a window of a text file, as numbered lines (`     1|text`).
 *
 * The size is asked of the environment first, so a huge file is refused (with terminal commands
 * to read parts of it) before a byte crosses to the host; the read itself carries the cap too, so
 * a file swapped for a bigger one after that check still costs the host at most the cap. Binary files (NUL bytes) are refused.
 * Lines longer than the cap are cut with a marker; a trailing `\r` (CRLF files) is not shown.
 */
import { groupDigits } from "@codecall/core/plugin-kit";
import { assertSize, binaryFile, checkPath, expandHome, looksBinary, probeFile, readBytes, throwIfAborted } from "./files.js";
import { resolveToolLimits, type BuiltinTool, type BuiltinToolsOptions } from "./options.js";

/** Arguments of `read_file`. */
export interface ReadFileArgs {
  path: string;
  /** First line to show, 1-based (default 1). */
  offset?: number;
  /** Lines to show (default 500, at most 2000). */
  limit?: number;
}

/** Result of `read_file`. */
export interface ReadFileResult {
  path: string;
  /** The lines, each as `{number right-aligned in 6}|{text}`, joined with `\n`. */
  content: string;
  /** Lines in the whole file. */
  total_lines: number;
  /** Number of the first line in `content` (= offset). */
  start_line: number;
  /** Number of the last line in `content`; `start_line - 1` when it is empty. */
  end_line: number;
  /** More lines follow: call again with `offset = end_line + 1`. */
  truncated: boolean;
}

/** Default `limit` of read_file, in lines. */
export const READ_FILE_DEFAULT_LIMIT = 500;
/** Largest `limit` read_file accepts, in lines. */
export const READ_FILE_MAX_LIMIT = 2000;

/** Creates the `read_file` tool with the given limits (see {@link BuiltinToolsOptions}). */
export function createReadFileTool(options: BuiltinToolsOptions = {}): BuiltinTool<ReadFileArgs, ReadFileResult> {
  const limits = resolveToolLimits(options);
  return {
    name: "read_file",
    description:
      'Read a text file as numbered lines ("     1|first line"), `limit` lines from line `offset` (1-based). ' +
      "The line-number prefix is not part of the file: leave it out when passing text to patch(). " +
      `Lines over ${groupDigits(limits.maxLineChars)} characters are cut with a marker. ` +
      "When `truncated` is true, read on with offset=end_line+1. Binary files and files over " +
      `${Math.round(limits.maxFileBytes / (1024 * 1024))} MiB are refused: use terminal (head, sed -n, grep) for those.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: "The file; relative paths start at the script's working directory." },
        offset: { type: "integer", minimum: 1, default: 1, description: "First line to return, 1-based." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: READ_FILE_MAX_LIMIT,
          default: READ_FILE_DEFAULT_LIMIT,
          description: `How many lines to return (1-${READ_FILE_MAX_LIMIT}).`,
        },
      },
      required: ["path"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        path: { type: "string" },
        content: { type: "string", description: "Numbered lines joined with newlines." },
        total_lines: { type: "integer" },
        start_line: { type: "integer" },
        end_line: { type: "integer" },
        truncated: { type: "boolean", description: "More lines follow end_line." },
      },
      required: ["path", "content", "total_lines", "start_line", "end_line", "truncated"],
    },
    async execute(args, context) {
      const path = checkPath(args.path);
      const offset = args.offset ?? 1;
      const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
      if (!Number.isInteger(offset) || offset < 1) throw new RangeError(`offset must be a line number >= 1, got ${String(offset)}`);
      if (!Number.isInteger(limit) || limit < 1 || limit > READ_FILE_MAX_LIMIT) {
        throw new RangeError(`limit must be from 1 to ${READ_FILE_MAX_LIMIT}, got ${String(limit)}`);
      }
      const environment = context.environment;
      const target = await expandHome(environment, path);
      assertSize(await probeFile(environment, target, path, context.signal), limits.maxFileBytes, path, "read_file");
      const bytes = await readBytes(environment, target, path, limits.maxFileBytes, "read_file");
      throwIfAborted(context.signal);
      if (looksBinary(bytes)) throw binaryFile(path, "read_file");

      const lines = new TextDecoder().decode(bytes).split("\n");
      // A final newline ends the last line; it does not start another one.
      if (lines[lines.length - 1] === "") lines.pop();

      const shown: string[] = [];
      let chars = 0;
      const last = Math.min(lines.length, offset - 1 + limit);
      for (let index = offset - 1; index < last; index += 1) {
        const line = `${String(index + 1).padStart(6)}|${cutLine(lines[index]!.replace(/\r$/, ""), limits.maxLineChars)}`;
        // Always show at least one line, so reading on makes progress.
        if (shown.length > 0 && chars + line.length + 1 > limits.maxReadChars) break;
        shown.push(line);
        chars += line.length + 1;
      }
      const endLine = offset - 1 + shown.length;
      return {
        path,
        content: shown.join("\n"),
        total_lines: lines.length,
        start_line: offset,
        end_line: endLine,
        truncated: endLine < lines.length,
      };
    },
  };
}

/** `line` cut to `max` characters (never inside a surrogate pair), with a marker saying so. */
function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  let end = max;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${line.slice(0, end)}… [line truncated: ${groupDigits(line.length)} characters in all]`;
}

/** The `read_file` tool with default limits. */
export const readFileTool: BuiltinTool<ReadFileArgs, ReadFileResult> = /* @__PURE__ */ createReadFileTool();
