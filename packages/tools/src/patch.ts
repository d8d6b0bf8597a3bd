/**
 * `patch`: exact string replacement in a text file. `old_string` must occur exactly once unless
 * `replace_all` is set, so an edit never lands in the wrong place. The file is read and written
 * through the environment; it must be valid UTF-8 without NUL bytes (so bytes the edit does not
 * touch are written back unchanged, a byte-order mark included).
 *
 * When `old_string` is not found in a CRLF file but is found once its `\n` become `\r\n`, the
 * edit applies with `\r\n` in both strings (models copy lines without the `\r`).
 */
import { CodecallError, errorMessage } from "@codecall/core";
import { assertSize, binaryFile, checkPath, expandHome, looksBinary, probeFile, readBytes, throwIfAborted } from "./files.js";
import { resolveToolLimits, type BuiltinTool, type BuiltinToolsOptions } from "./options.js";

/** Arguments of `patch`. */
export interface PatchArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Result of `patch`. */
export interface PatchResult {
  path: string;
  /** Occurrences replaced. */
  replacements: number;
}

/** Creates the `patch` tool with the given limits (see {@link BuiltinToolsOptions}). */
export function createPatchTool(options: BuiltinToolsOptions = {}): BuiltinTool<PatchArgs, PatchResult> {
  const limits = resolveToolLimits(options);
  return {
    name: "patch",
    description:
      "Replace an exact string in a text file. old_string must match the file exactly (whitespace and " +
      "indentation included, without read_file's line-number prefixes) and occur once, unless " +
      "replace_all=True replaces every occurrence. Include a few surrounding lines to make it unique.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: "The file to edit." },
        old_string: { type: "string", minLength: 1, description: "The exact text to replace; may span several lines." },
        new_string: { type: "string", description: "The replacement text (may be empty to delete old_string)." },
        replace_all: { type: "boolean", default: false, description: "Replace every occurrence instead of requiring exactly one." },
      },
      required: ["path", "old_string", "new_string"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        path: { type: "string" },
        replacements: { type: "integer", description: "How many occurrences were replaced." },
      },
      required: ["path", "replacements"],
    },
    async execute(args, context) {
      const path = checkPath(args.path);
      const { old_string: oldString, new_string: newString } = args;
      if (typeof oldString !== "string" || oldString === "") throw new TypeError("old_string must be a non-empty string");
      if (typeof newString !== "string") throw new TypeError("new_string must be a string");
      if (oldString === newString) throw new TypeError("old_string and new_string are identical; there is nothing to change");
      const replaceAll = args.replace_all === true;

      const environment = context.environment;
      const target = await expandHome(environment, path);
      assertSize(await probeFile(environment, target, path, context.signal), limits.maxFileBytes, path, "patch");
      const bytes = await readBytes(environment, target, path, limits.maxFileBytes, "patch");
      if (looksBinary(bytes)) throw binaryFile(path, "patch");
      const text = decodeStrict(bytes, path);

      // A file whose lines all end in CRLF keeps them: the model writes "\n" (as read_file shows
      // the lines), and a bare "\n" in what it puts in would mix the endings.
      const crlfFile = text.includes("\r\n") && !/(?<!\r)\n/.test(text);
      let from = crlfFile ? toCrlf(oldString) : oldString;
      let to = crlfFile ? toCrlf(newString) : newString;
      let count = countOccurrences(text, from);
      if (count === 0 && !crlfFile && text.includes("\r\n") && /(?<!\r)\n/.test(oldString)) {
        // Mixed endings: the CRLF lines may be the ones meant.
        const crlfFrom = toCrlf(oldString);
        const crlfCount = countOccurrences(text, crlfFrom);
        if (crlfCount > 0) {
          from = crlfFrom;
          to = toCrlf(newString);
          count = crlfCount;
        }
      }
      if (count === 0) throw notFound(path, oldString);
      if (count > 1 && !replaceAll) {
        throw new Error(
          `old_string appears ${count} times in ${path}; add surrounding context to make it unique, or set replace_all=True to replace all ${count}.`,
        );
      }

      let updated: string;
      if (replaceAll) {
        updated = text.split(from).join(to);
      } else {
        const at = text.indexOf(from);
        updated = text.slice(0, at) + to + text.slice(at + from.length);
      }
      throwIfAborted(context.signal);
      try {
        await environment.writeFile(target, new TextEncoder().encode(updated));
      } catch (error) {
        // The write may have cut the file short (a full disk, a quota, a lost connection): the
        // original, held only here, goes back if it can.
        const restored = await environment.writeFile(target, bytes).then(
          () => "the file was restored as it was",
          (restoreError: unknown) => `restoring it failed too (${errorMessage(restoreError)}); it may be cut short`,
        );
        throw new CodecallError("ENVIRONMENT_FAILED", `patch could not write ${path}: ${errorMessage(error)}; ${restored}.`, {
          cause: error,
          details: { path },
        });
      }
      return { path, replacements: replaceAll ? count : 1 };
    },
  };
}

/** Non-overlapping occurrences of `needle` (the ones a split/join replaces). */
function countOccurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Lone `\n` made `\r\n`. */
function toCrlf(text: string): string {
  return text.replace(/(?<!\r)\n/g, "\r\n");
}

/** UTF-8 text with the BOM kept, or an error: re-encoding replaced bytes would corrupt the file. */
function decodeStrict(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new CodecallError("INVALID_PATH", `${path} is not valid UTF-8 text; patch edits UTF-8 files only. Use terminal (e.g. sed) to edit it.`, {
      cause: error,
      details: { path },
    });
  }
}

function notFound(path: string, oldString: string): Error {
  const hints = ["Read the file again with read_file and copy the exact text, including whitespace and indentation."];
  // [ \t], not \s: \s crosses lines, and tries every start again (quadratic on a hostile string).
  if (/^[ \t]*\d+\|/m.test(oldString)) hints.unshift('old_string seems to contain read_file\'s line-number prefixes ("    12|"); leave them out.');
  return new Error(`old_string not found in ${path}. ${hints.join(" ")}`);
}

/** The `patch` tool with default limits. */
export const patchTool: BuiltinTool<PatchArgs, PatchResult> = /* @__PURE__ */ createPatchTool();
