/** @codecall/backend-daytona — run scripts and commands in Daytona sandboxes. */
export { createEnvironment, DaytonaEnvironment } from "./daytona-environment.js";
export { environmentOptions, parseDaytonaOptions, type DaytonaEnvironmentOptions, type ParsedDaytonaOptions } from "./daytona-options.js";
export { SDK_PACKAGES, type DaytonaSdk, type SdkImporter } from "./daytona-sdk.js";
