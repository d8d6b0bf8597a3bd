/**
 * `search_files`: regex search over file contents (`target="content"`) or glob search over file
 * names (`target="files"`), run inside the environment with POSIX `find`, `grep -E`, `sort` and
 * `awk`, so it works in any container or host that has a shell and coreutils.
 *
 * - Every argument reaches the shell through `shellQuote`; the pattern goes to grep after `-e`.
 * - `.git`, `.hg`, `.svn` and `node_modules` directories are skipped (unless `path` is one).
 * - Binary files are skipped in content mode (`grep -I`, where the grep supports it).
 * - Paging happens in the environment (awk keeps only the requested window and counts the rest),
 *   so the host receives at most `limit` results whatever the tree holds.
 * - Content matches come in `find` order (stable while the tree is unchanged); file names sorted.
 */
import { CodecallError } from "@codecall/core";
import { shellQuote } from "@codecall/core/plugin-kit";
import { checkPath, expandHome, throwIfAborted } from "./files.js";
import { resolveToolLimits, type BuiltinTool, type BuiltinToolsOptions } from "./options.js";
import { toPosixEre } from "./regex.js";

/** Directories search_files never descends into (unless the search starts inside one). */
export const SEARCH_EXCLUDED_DIRS: readonly string[] = [".git", ".hg", ".svn", "node_modules"];

/** Default `limit` of search_files, in results. */
export const SEARCH_DEFAULT_LIMIT = 50;
/** Largest `limit` search_files accepts, in results. */
export const SEARCH_MAX_LIMIT = 1000;

/** Bytes of one raw grep output line kept by awk (path + line number + text). */
const RAW_LINE_BYTES = 4096;

/** Arguments of `search_files`. */
export interface SearchFilesArgs {
  pattern: string;
  target?: "content" | "files";
  path?: string;
  file_glob?: string | null;
  limit?: number;
  offset?: number;
}

/** One matching line. */
export interface SearchMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

/** Result of `search_files`. */
export interface SearchFilesResult {
  /** Matching lines (content mode; empty in files mode). */
  matches: SearchMatch[];
  /** Matching file paths (files mode; empty in content mode). */
  files: string[];
  /** All matches, before paging. */
  total: number;
  /** More results follow: call again with `offset + limit`. */
  truncated: boolean;
}

/** Creates the `search_files` tool with the given limits (see {@link BuiltinToolsOptions}). */
export function createSearchFilesTool(options: BuiltinToolsOptions = {}): BuiltinTool<SearchFilesArgs, SearchFilesResult> {
  const limits = resolveToolLimits(options);
  return {
    name: "search_files",
    description:
      'Search file contents with a regular expression (target="content", returns matching lines) or file ' +
      'names with a glob (target="files", returns paths), recursively under path. Content patterns are ' +
      "POSIX extended regular expressions like grep -E (\\d, \\s, \\w are accepted; escape literal . ( ) [ ] { } * + ? | ^ $). " +
      "Skips .git, .hg, .svn, node_modules and, for content, binary files. Results are paged with " +
      "limit/offset; `total` counts all of them.",
    parameters: {
      type: "object",
      properties: {
        pattern: {
          type: "string",
          minLength: 1,
          description: 'Regex for content (e.g. "def \\w+\\("), or a file-name glob for files (e.g. "*.py").',
        },
        target: {
          type: "string",
          enum: ["content", "files"],
          default: "content",
          description: '"content" searches inside files, "files" matches file names.',
        },
        path: { type: "string", minLength: 1, default: ".", description: "File or directory to search (default: the working directory)." },
        file_glob: {
          type: "string",
          minLength: 1,
          description: 'Only files whose name matches this glob, e.g. "*.ts" (names only; put directories in path).',
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: SEARCH_MAX_LIMIT,
          default: SEARCH_DEFAULT_LIMIT,
          description: `Results to return (1-${SEARCH_MAX_LIMIT}).`,
        },
        offset: { type: "integer", minimum: 0, default: 0, description: "Results to skip, for paging." },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        matches: {
          type: "array",
          description: 'Matching lines (target="content").',
          items: {
            type: "object",
            properties: { path: { type: "string" }, line: { type: "integer" }, text: { type: "string" } },
            required: ["path", "line", "text"],
          },
        },
        files: { type: "array", description: 'Matching paths (target="files").', items: { type: "string" } },
        total: { type: "integer", description: "Results in all, before paging." },
        truncated: { type: "boolean", description: "More results follow this page." },
      },
      required: ["matches", "files", "total", "truncated"],
    },
    async execute(args, context) {
      const pattern = args.pattern;
      if (typeof pattern !== "string" || pattern === "") throw new TypeError("pattern must be a non-empty string");
      if (pattern.includes("\n") || pattern.includes("\0")) throw new TypeError("pattern must be a single line");
      const target = args.target ?? "content";
      if (target !== "content" && target !== "files") throw new TypeError(`target must be "content" or "files", got ${JSON.stringify(target)}`);
      const path = checkPath(args.path ?? ".");
      const fileGlob = args.file_glob == null ? undefined : checkGlob(args.file_glob, "file_glob");
      if (target === "files") checkGlob(pattern, "pattern");
      const limit = args.limit ?? SEARCH_DEFAULT_LIMIT;
      const offset = args.offset ?? 0;
      if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT)
        throw new RangeError(`limit must be from 1 to ${SEARCH_MAX_LIMIT}, got ${String(limit)}`);
      if (!Number.isInteger(offset) || offset < 0) throw new RangeError(`offset must be >= 0, got ${String(offset)}`);

      const environment = context.environment;
      const start = await expandHome(environment, path);
      const script = buildSearchScript({ start, target, pattern, fileGlob, limit, offset });
      throwIfAborted(context.signal);
      const result = await environment.execute(script, {
        timeoutMs: limits.searchTimeoutMs,
        maxOutputBytes: limit * (RAW_LINE_BYTES + 2) + 65_536,
        signal: context.signal,
      });
      throwIfAborted(context.signal);

      if (result.timedOut) {
        throw new Error(`search_files timed out after ${Math.round(limits.searchTimeoutMs / 1000)} s; narrow it with a smaller path or a file_glob.`);
      }
      if (result.exitCode === 3 && result.stderr.includes(PATH_NOT_FOUND)) {
        throw new CodecallError("FILE_NOT_FOUND", `Path not found: ${path}`, { details: { path } });
      }
      if (result.exitCode === 4) {
        throw new Error(
          `Invalid regular expression ${JSON.stringify(pattern)}: ${result.stderr.trim()}. search_files uses POSIX extended ` +
            "regular expressions (grep -E); escape literal ( ) [ ] { } . * + ? | with a backslash.",
        );
      }
      const lines = result.stdout.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      const totalLine = lines.pop();
      const total = totalLine === undefined ? Number.NaN : Number(totalLine);
      if (result.exitCode !== 0 || !Number.isSafeInteger(total)) {
        const why = result.stderr.trim() || `exit code ${result.exitCode}`;
        throw new CodecallError("ENVIRONMENT_FAILED", `search_files failed: ${why}`, { details: { path } });
      }

      // find prints paths under the start as given; drop the "./" of "." and of the dash guard.
      const display = path === "." || start.startsWith("-") ? (found: string) => tidy(found).replace(/^\.\//, "") : tidy;
      const matches: SearchMatch[] = [];
      const files: string[] = [];
      for (const line of lines) {
        if (target === "files") {
          files.push(display(line));
          continue;
        }
        const match = nameEnd(line) ?? /^(.*?):(\d+):([\s\S]*)$/.exec(line);
        if (!match) continue;
        matches.push({ path: display(match[1]), line: Number(match[2]), text: cutText(match[3].replace(/\r$/, ""), limits.maxMatchChars) });
      }
      const returned = target === "files" ? files.length : matches.length;
      return { matches, files, total, truncated: offset + returned < total };
    },
  };
}

/** Marker the script writes to stderr (with exit code 3) when `path` does not exist. */
const PATH_NOT_FOUND = "codecall-search: path not found";

interface SearchPlan {
  start: string;
  target: "content" | "files";
  pattern: string;
  fileGlob: string | undefined;
  limit: number;
  offset: number;
}

/** The POSIX sh script of one search. Every value in it is quoted with `shellQuote`. */
export function buildSearchScript(plan: SearchPlan): string {
  const q = shellQuote;
  // A path starting with "-" would read as an option of find.
  const start = plan.start.startsWith("-") ? `./${plan.start}` : plan.start;
  const base = start.replace(/\/+$/, "").split("/").pop() ?? "";
  const excluded = SEARCH_EXCLUDED_DIRS.filter((name) => name !== base);
  const prune = excluded.length === 0 ? "" : `\\( ${excluded.map((name) => `-name ${q(name)}`).join(" -o ")} \\) -prune -o`;
  const globTest = plan.fileGlob === undefined ? "" : ` -name ${q(plan.fileGlob)}`;
  // Regular files, and symlinks to regular files (AGENTS.md -> CLAUDE.md); a symlinked directory
  // below the start is not descended into (no loops), as ripgrep and git grep do.
  const isFile = `\\( -type f -o \\( -type l -exec test -f {} \\; \\) \\)`;
  const page = `-v off=${plan.offset} -v lim=${plan.limit}`;
  const lines = [
    `p=${q(start)}`,
    `if [ ! -e "$p" ] && [ ! -L "$p" ]; then echo ${q(PATH_NOT_FOUND)} >&2; exit 3; fi`,
    // find does not descend into a symlinked start directory unless it ends with "/".
    `if [ -L "$p" ] && [ -d "$p" ]; then p="$p/"; fi`,
  ];
  if (plan.target === "files") {
    lines.push(
      `find "$p" ${prune} ${isFile} -name ${q(plan.pattern)}${globTest} -print 2>/dev/null | LC_ALL=C sort | ` +
        `awk ${page} 'NR > off && NR <= off + lim { print } END { print NR + 0 }'`,
    );
  } else {
    const regex = q(toPosixEre(plan.pattern));
    lines.push(
      // grep exits 2 on a bad regex: check it once, up front, with its message.
      `err=$(grep -E -e ${regex} </dev/null 2>&1 >/dev/null); if [ $? -eq 2 ]; then printf '%s\\n' "$err" >&2; exit 4; fi`,
      `if grep -I -e x </dev/null >/dev/null 2>&1; [ $? -le 1 ]; then bin=-I; else bin=; fi`,
      // With -Z (GNU grep) a file name ends in a NUL, made \001 for awk: "a:12:b.log:3:text" is
      // ambiguous, "a:12:b.log\0013:text" is not. Without it (BusyBox), names end in ":".
      `if grep -Z -e x </dev/null >/dev/null 2>&1; [ $? -le 1 ]; then z=-Z; sep=$(printf '\\001'); else z=; sep=; fi`,
      // "/dev/null" as a second file makes every grep print file names. awk counts in bytes
      // (LC_ALL=C): a cut line is at most RAW_LINE_BYTES, as the host's output cap assumes.
      `find "$p" ${prune} ${isFile}${globTest} -exec grep -nsE $bin $z -e ${regex} /dev/null {} + 2>/dev/null | tr '\\000' '\\001' | ` +
        `LC_ALL=C awk ${page} -v sep="$sep" '(sep != "" ? index($0, sep) > 0 : /:[0-9]+:/) { n++; if (n > off && n <= off + lim) print substr($0, 1, ${RAW_LINE_BYTES}) } END { print n + 0 }'`,
    );
  }
  return lines.join("\n");
}

/** Where grep -Z ended the file name (the script makes its NUL a \u0001): [line, path, number, text], or null. */
function nameEnd(line: string): [string, string, string, string] | null {
  const end = line.indexOf("\u0001");
  if (end < 0) return null;
  const numbered = /^(\d+):([\s\S]*)$/.exec(line.slice(end + 1));
  return numbered ? [line, line.slice(0, end), numbered[1]!, numbered[2]!] : null;
}

/** Repeated slashes (a symlinked start gets a "/" appended) folded into one. */
function tidy(found: string): string {
  return found.replace(/\/{2,}/g, "/");
}

/** A glob matched against file names: one line, no "/". */
function checkGlob(glob: unknown, name: string): string {
  if (typeof glob !== "string" || glob === "") throw new TypeError(`${name} must be a non-empty string`);
  if (glob.includes("\n") || glob.includes("\0")) throw new TypeError(`${name} must be a single line`);
  if (glob.includes("/")) {
    throw new TypeError(
      `${name} is matched against file names only, so it cannot contain "/" (got ${JSON.stringify(glob)}); put the directory in path instead.`,
    );
  }
  return glob;
}

/** Long matching lines (minified code) cut to `max` characters with a marker. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [line truncated]`;
}

/** The `search_files` tool with default limits. */
export const searchFilesTool: BuiltinTool<SearchFilesArgs, SearchFilesResult> = /* @__PURE__ */ createSearchFilesTool();
