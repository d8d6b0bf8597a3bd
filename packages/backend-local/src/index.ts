/** @codecall/backend-local — run scripts and commands as child processes on this machine. */
export { createEnvironment, LocalEnvironment } from "./local-environment.js";
export { environmentOptions, type LocalEnvironmentOptions } from "./local-options.js";
