/** @codecall/backend-local — run scripts and commands as child processes on this machine. */
export { createEnvironment, LocalEnvironment, type LocalEnvironmentOptions } from "./local-environment.js";
export { LocalProcess } from "./local-process.js";
