/** @codecall/backend-singularity — run scripts and commands in Apptainer/Singularity instances. */
export { createEnvironment, SingularityEnvironment } from "./singularity-environment.js";
export {
  environmentOptions,
  parseSingularityOptions,
  type ParsedSingularityOptions,
  type SingularityEnvironmentOptions,
} from "./singularity-options.js";
