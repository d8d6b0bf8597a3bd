/**
 * All built-in tools at once. Each acts only through `context.environment`, so during a run it
 * works where the script runs (a container, a remote host) with the run's scrubbed env.
 */
import type { ToolDefinition } from "@codecall/core";
import type { BuiltinToolsOptions } from "./options.js";
import { createPatchTool, patchTool } from "./patch.js";
import { createReadFileTool, readFileTool } from "./read-file.js";
import { createSearchFilesTool, searchFilesTool } from "./search-files.js";
import { createTerminalTool, terminalTool } from "./terminal.js";
import { createWriteFileTool, writeFileTool } from "./write-file.js";

/** Names of the built-in tools, in the order {@link builtinTools} lists them. */
export const BUILTIN_TOOL_NAMES = ["terminal", "read_file", "write_file", "search_files", "patch"] as const;

/** One of {@link BUILTIN_TOOL_NAMES}. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** The five built-in tools with their own limits (see {@link BuiltinToolsOptions}). */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [
    createTerminalTool(options),
    createReadFileTool(options),
    createWriteFileTool(options),
    createSearchFilesTool(options),
    createPatchTool(options),
  ];
}

/** The five built-in tools with default limits: terminal, read_file, write_file, search_files, patch. */
export const builtinTools: readonly ToolDefinition[] = Object.freeze([terminalTool, readFileTool, writeFileTool, searchFilesTool, patchTool]);
