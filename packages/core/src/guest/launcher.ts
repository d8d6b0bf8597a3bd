/**
 * How a script is started. Everywhere, it can run under the Python launcher (see
 * `python/launcher.py`): the launcher is a child subreaper where Linux allows it, so when the
 * script's process exits, every process it left behind — also those that left its process group
 * and cleared their environment — is ended, and the run ends with the script instead of waiting
 * for a helper that holds stdout. The launcher is the script's own interpreter, started once: the
 * script runs in a fork of it. Where the environment holds the tree itself
 * (`SpawnOptions.whenTreeHeld`: an environment agent's shepherd), the launcher runs the script in
 * its own process instead (`--direct`).
 */
import type { TreeHeldCommand } from "../environment.js";
import launcher from "./python/launcher.py?raw";
import { shellQuote } from "../text/shell-quote.js";

/** The command and spawn option that start a script (see {@link scriptLaunch}). */
export interface ScriptLaunch {
  /** Under the launcher: for any environment. */
  command: string;
  /** Directly, where the environment holds the command's tree. */
  whenTreeHeld: TreeHeldCommand;
}

/**
 * A shell command that runs `scriptPath` with `interpreter` (a shell word or words, such as
 * `python3` or `python3 -X dev`) under the launcher; the exit status is the script's. With
 * `archivePath` (a zip from `storedZip`), the launcher first writes the archive's files into its
 * directory. With `scriptName`, tracebacks, warnings and syntax errors call the script by that name.
 */
export function launchScriptCommand(interpreter: string, scriptPath: string, archivePath?: string, scriptName?: string): string {
  const archive = archivePath === undefined ? "" : ` ${shellQuote(archivePath)}`;
  return `${SAFE_PATH_EXPORT}exec ${interpreter} -c ${shellQuote(launcher)}${nameArgument(scriptName)}${archive} ${shellQuote(scriptPath)}`;
}

/**
 * `-c` puts the working directory first on the module path, and Python 3.13 imports `linecache`
 * from there before the launcher runs: a `linecache.py` in the script's working directory would
 * break every run (a script run from its file has its own directory there instead). Python ≥ 3.11
 * leaves it out under PYTHONSAFEPATH (older ones ignore it and import nothing from there); the
 * launcher puts the environment's own value back (kept in CODECALL_SAFE_PATH) before the script runs.
 */
const SAFE_PATH_EXPORT = 'export CODECALL_SAFE_PATH="${PYTHONSAFEPATH-}" PYTHONSAFEPATH=1; ';

/**
 * Both ways to run a script (arguments as for {@link launchScriptCommand}); pass `command` to
 * `spawn` with `whenTreeHeld` among its options, and the environment picks. The direct way leaves
 * the archive to the environment (`TreeHeldCommand.unpack`) and runs the script as the command's
 * first process, which leads its session: the guest's start-up hook (`sitecustomize.py`) knows it
 * by that, as it knows the launcher's child by the pid the launcher gives it.
 */
export function scriptLaunch(interpreter: string, scriptPath: string, archivePath?: string, scriptName?: string): ScriptLaunch {
  const direct = `${SAFE_PATH_EXPORT}exec ${interpreter} -c ${shellQuote(launcher)} --direct${nameArgument(scriptName)} ${shellQuote(scriptPath)}`;
  return {
    command: launchScriptCommand(interpreter, scriptPath, archivePath, scriptName),
    whenTreeHeld: {
      command: `export CODECALL_SCRIPT_PID=session-leader; ${direct}`,
      ...(archivePath === undefined ? {} : { unpack: archivePath }),
    },
  };
}

function nameArgument(scriptName: string | undefined): string {
  return scriptName === undefined ? "" : ` --name ${shellQuote(scriptName)}`;
}
