/** `codecall run [--backend NAME] --help`: the usage, then the options the backend declares. */
import type { BackendPlugin } from "@codecall/core";
import { HELP } from "./help.js";

/** The text of `codecall run --backend NAME --help`. */
export function runHelp(name: string, plugin: BackendPlugin): string {
  const declared = plugin.environmentOptions;
  const options = declared
    ? `Options of the ${name} backend (${plugin.specifier}), as -o NAME=VALUE (repeatable) or as
"backendOptions" in a --config file:\n\n${declared.help()}\n`
    : `${plugin.specifier} does not declare its options (it exports no environmentOptions); see its documentation.\n`;
  return `${HELP}\n${options}`;
}
