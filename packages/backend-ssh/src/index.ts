/** @codecall/backend-ssh — run scripts and commands on an SSH host, with host key verification on by default. */
export { createEnvironment, SshEnvironment } from "./ssh-environment.js";
export { environmentOptions, type SshEnvironmentOptions } from "./ssh-options.js";
