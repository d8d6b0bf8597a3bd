/**
 * Entry of the `codecall` command: dispatches to subcommands and reports errors plainly. Each
 * command's code is imported when that command is the one asked for: a `run` does not load the
 * MCP server's code, `--version` loads no core at all.
 */
import { readFileSync } from "node:fs";
import { HELP } from "./help.js";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";
import type { CliIO } from "./run-command.js";

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
      return await (await import("./run-command.js")).runFromArgs(rest, io);
    }
    if (command === "tools" || command === "stub") return await (await import("./tools-command.js")).toolsCommand(command, rest, io);
    if (command === "mcp") return await (await import("./mcp-command.js")).mcpCommand(rest, io);
    if (command === "repl") return await (await import("./repl-command.js")).replCommand(rest, io);
    throw new UsageError(`Unknown command ${JSON.stringify(command)}. Run \`codecall --help\`.`, USAGE_EXIT_CODE);
  } catch (error) {
    // Messages quote what came from outside (a tools module's error, an MCP server's words): as
    // text only, not as commands to the terminal. Loaded here, on failure only: see bin.ts.
    const { stripAnsi } = await import("@codecall/core/plugin-kit");
    if (error instanceof UsageError) {
      io.stderr.write(`codecall: ${stripAnsi(error.message)}\n`);
      return error.exitCode;
    }
    io.stderr.write(`codecall: unexpected failure: ${stripAnsi(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    return 1;
  }
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}
