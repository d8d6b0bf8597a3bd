/** codecall CLI, importable for embedding and tests. */
export { main } from "./main.js";
export { runCommand, type CliIO } from "./run-command.js";
export { parseRunArgs, parseBackendOptions, type RunConfig } from "./run-config.js";
export { EXIT_CODES, UsageError } from "./exit-codes.js";
export { createModuleImporter, loadToolModule } from "./module-loading.js";
