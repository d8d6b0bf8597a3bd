/**
 * The command that runs a script under the Python launcher (see `python/launcher.py`): the
 * launcher is a child subreaper where Linux allows it, so when the script's process exits, every
 * process it left behind — also those that left its process group and cleared their environment
 * — is ended, and the run ends with the script instead of waiting for a helper that holds stdout.
 */
import launcher from "./python/launcher.py?raw";
import { shellQuote } from "../text/shell-quote.js";

/**
 * A shell command that runs `scriptPath` with `interpreter` (a shell word or words, such as
 * `python3`) under the launcher; the exit status is the script's. With `archivePath` (a zip from
 * `storedZip`), the launcher first writes the archive's files into its directory. With
 * `scriptName`, tracebacks call the script by that name (it runs through `_codecall_main.py`, which
 * must be beside it: the guest's archive holds it).
 */
export function launchScriptCommand(interpreter: string, scriptPath: string, archivePath?: string, scriptName?: string): string {
  // -I -S: the launcher needs no site packages, and importing them is most of a start.
  const name = scriptName === undefined ? "" : ` --name ${shellQuote(scriptName)}`;
  const archive = archivePath === undefined ? "" : ` ${shellQuote(archivePath)}`;
  return `exec ${interpreter} -I -S -c ${shellQuote(launcher)}${name}${archive} ${shellQuote(scriptPath)}`;
}
