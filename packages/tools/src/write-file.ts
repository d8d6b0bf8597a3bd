/**
 * `write_file`: writes a whole text file (UTF-8), replacing what was there and creating missing
 * parent directories (the Environment contract's `writeFile` does both).
 */
import { CodecallError, errorMessage } from "@codecall/core";
import { checkPath, expandHome, throwIfAborted } from "./files.js";
import type { BuiltinTool, BuiltinToolsOptions } from "./options.js";

/** Arguments of `write_file`. */
export interface WriteFileArgs {
  path: string;
  content: string;
}

/** Result of `write_file`. */
export interface WriteFileResult {
  path: string;
  /** UTF-8 bytes written. */
  bytes_written: number;
}

/** Creates the `write_file` tool. It has no limits of its own; `options` is accepted for symmetry. */
export function createWriteFileTool(_options: BuiltinToolsOptions = {}): BuiltinTool<WriteFileArgs, WriteFileResult> {
  return {
    name: "write_file",
    description:
      "Write a text file (UTF-8), replacing its contents; missing parent directories are created. " +
      "To change part of an existing file, use patch() instead.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: "The file; relative paths start at the script's working directory." },
        content: { type: "string", description: "The complete new contents." },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        path: { type: "string" },
        bytes_written: { type: "integer" },
      },
      required: ["path", "bytes_written"],
    },
    async execute(args, context) {
      const path = checkPath(args.path);
      if (typeof args.content !== "string") throw new TypeError("content must be a string");
      const environment = context.environment;
      const target = await expandHome(environment, path);
      const bytes = new TextEncoder().encode(args.content);
      throwIfAborted(context.signal);
      try {
        await environment.writeFile(target, bytes);
      } catch (error) {
        if (CodecallError.isInstance(error)) throw error;
        throw new CodecallError("ENVIRONMENT_FAILED", `Could not write ${path}: ${errorMessage(error)}`, { cause: error, details: { path } });
      }
      return { path, bytes_written: bytes.length };
    },
  };
}

/** The `write_file` tool. */
export const writeFileTool: BuiltinTool<WriteFileArgs, WriteFileResult> = /* @__PURE__ */ createWriteFileTool();
