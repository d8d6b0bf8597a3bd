/** Entry of the `codecall` command: dispatches to subcommands and reports errors plainly. */
import { readFileSync } from "node:fs";
import { HELP } from "./help.js";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";
import { parseRunArgs } from "./run-config.js";
import { mcpCommand } from "./mcp-command.js";
import { replCommand } from "./repl-command.js";
import { printRunHelp, runCommand, type CliIO } from "./run-command.js";
import { toolsCommand } from "./tools-command.js";

/** Runs the CLI with `args` (without the node and script paths) and returns the exit code. */
export async function main(args: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      io.stdout.write(HELP);
      return command === undefined ? USAGE_EXIT_CODE : 0;
    }
    if (command === "--version" || command === "-V") {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    if (command === "run") {
      const request = await parseRunArgs(rest, io.cwd);
      return "help" in request ? await printRunHelp(request, io) : await runCommand(request, io);
    }
    if (command === "tools" || command === "stub") return await toolsCommand(command, rest, io);
    if (command === "mcp") return await mcpCommand(rest, io);
    if (command === "repl") return await replCommand(rest, io);
    throw new UsageError(`Unknown command ${JSON.stringify(command)}. Run \`codecall --help\`.`, USAGE_EXIT_CODE);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`codecall: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`codecall: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}
