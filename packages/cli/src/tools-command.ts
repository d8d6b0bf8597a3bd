/**
 * `codecall tools` and `codecall stub`: what a script would get, without running one — the tools
 * with their Python signatures (as the model reads them in execute_code's description), or the
 * whole generated module. The tools are gathered as `codecall run` gathers them (built-ins,
 * `--tools`, `--mcp`, the config file), and MCP servers are closed again before the command ends.
 */
import { describePythonSignatures, generatePythonModule, type ToolDefinition } from "@codecall/core";
import { stripAnsi } from "@codecall/core/plugin-kit";
import { STUB_HELP, TOOLS_HELP } from "./command-help.js";
import { USAGE_EXIT_CODE, UsageError } from "./exit-codes.js";
import { createModuleImporter } from "./module-loading.js";
import { parseToolsArgs } from "./run-config.js";
import type { CliIO } from "./run-command.js";
import { loadTools } from "./tool-loading.js";

export async function toolsCommand(command: "tools" | "stub", args: string[], io: CliIO): Promise<number> {
  const parsed = await parseToolsArgs(command, args, io.cwd);
  if ("help" in parsed) {
    io.stdout.write(command === "tools" ? TOOLS_HELP : STUB_HELP);
    return 0;
  }
  if (parsed.positionals.length > 0)
    throw new UsageError(`codecall ${command} takes no arguments, got ${parsed.positionals.join(" ")}`, USAGE_EXIT_CODE);
  const loaded = await loadTools(parsed.config, io, createModuleImporter(io.cwd));
  try {
    const tools = allowedTools(loaded.tools, parsed.config.allowTools);
    if (command === "stub") io.stdout.write(generatePythonModule({ tools }));
    else if (parsed.config.json) {
      const described = tools.map(({ name, description, parameters, returns }) => ({
        name,
        description,
        parameters,
        ...(returns ? { returns } : {}),
      }));
      io.stdout.write(`${JSON.stringify(described, null, 2)}\n`);
    } else {
      // Descriptions may come from an MCP server: text, not commands to the terminal.
      io.stdout.write(tools.length === 0 ? "No tools: scripts run plain Python.\n" : `${stripAnsi(describePythonSignatures(tools).join("\n"))}\n`);
    }
  } finally {
    await loaded.close();
  }
  return 0;
}

/** The tools `allow` names (all when it is undefined; loadTools has refused names no tool has). */
function allowedTools(tools: readonly ToolDefinition[], allow: readonly string[] | undefined): ToolDefinition[] {
  return allow === undefined ? [...tools] : tools.filter((tool) => allow.includes(tool.name));
}
