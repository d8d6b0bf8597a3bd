/**
 * @codecall/tools — the built-in tools a script can call: terminal, read_file, write_file,
 * search_files and patch. Implemented only over the Environment contract (no node:* imports), so
 * they run in any runtime and act inside whatever environment the script runs in.
 */
export { BUILTIN_TOOL_NAMES, builtinTools, createBuiltinTools, type BuiltinToolName } from "./builtin-tools.js";
export { DEFAULT_TOOL_LIMITS, resolveToolLimits, type BuiltinTool, type BuiltinToolsOptions } from "./options.js";
export {
  createTerminalTool,
  TERMINAL_DEFAULT_TIMEOUT_S,
  TERMINAL_MAX_TIMEOUT_S,
  terminalTool,
  TIMEOUT_EXIT_CODE,
  type TerminalArgs,
  type TerminalResult,
} from "./terminal.js";
export {
  createReadFileTool,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_MAX_LIMIT,
  readFileTool,
  type ReadFileArgs,
  type ReadFileResult,
} from "./read-file.js";
export { createWriteFileTool, writeFileTool, type WriteFileArgs, type WriteFileResult } from "./write-file.js";
export {
  createSearchFilesTool,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_EXCLUDED_DIRS,
  SEARCH_MAX_LIMIT,
  searchFilesTool,
  type SearchFilesArgs,
  type SearchFilesResult,
  type SearchMatch,
} from "./search-files.js";
export { createPatchTool, patchTool, type PatchArgs, type PatchResult } from "./patch.js";
