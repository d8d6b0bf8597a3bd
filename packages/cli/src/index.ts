/** codecall CLI, importable for embedding and tests. */
export { main } from "./main.js";
export { runCommand, type CliIO } from "./run-command.js";
export { parseRunArgs, type RunConfig, type RunHelpRequest } from "./run-config.js";
export { backendOptionsFor, parseBackendOptions } from "./backend-options.js";
export { EXIT_CODES, SIGNAL_EXIT_CODES, USAGE_EXIT_CODE, UsageError, type StopSignal } from "./exit-codes.js";
export { createModuleImporter, loadToolModule } from "./module-loading.js";
