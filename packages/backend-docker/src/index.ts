/** @codecall/backend-docker — run scripts and commands in Docker containers (dockerode). */
export { createEnvironment, DockerEnvironment } from "./docker-environment.js";
export { DEFAULT_PIDS_LIMIT, environmentOptions, type DockerConnectionOptions, type DockerEnvironmentOptions } from "./docker-options.js";
export { cleanupStaleContainers, type CleanupOptions, type RemovedContainer } from "./stale-containers.js";
export { CREATED_LABEL, HOST_LABEL, MANAGED_LABEL, PID_LABEL, SESSION_LABEL } from "./container-labels.js";
export { parseMemory } from "./parse-options.js";
