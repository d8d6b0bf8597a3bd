/**
 * What `codecall run`, `codecall repl` and `codecall mcp serve` pass to core from the shared flags:
 * the transports, and the options of every run (allowed tools, limits, env, cwd, interpreter,
 * approval timeout), read the same way by all three.
 */
import { resolveTransports, type Environment, type ExecuteCodeOptions, type ModuleImporter, type Transport } from "@codecall/core";
import type { ToolsConfig } from "./run-config.js";

/** The options of a run that the flags decide. */
export type ConfiguredRunOptions = Pick<ExecuteCodeOptions, "allowedTools" | "limits" | "env" | "cwd" | "interpreter" | "approvalTimeoutMs">;

export function runOptionsFrom(config: ToolsConfig): ConfiguredRunOptions {
  return {
    ...(config.allowTools ? { allowedTools: config.allowTools } : {}),
    limits: {
      ...(config.timeoutSeconds === undefined ? {} : { timeoutMs: Math.round(config.timeoutSeconds * 1000) }),
      ...(config.maxToolCalls === undefined ? {} : { maxToolCalls: config.maxToolCalls }),
    },
    env: { passthrough: config.envPassthrough },
    ...(config.cwd ? { cwd: config.cwd } : {}),
    ...(config.interpreter ? { interpreter: config.interpreter } : {}),
    ...(config.approvalTimeoutSeconds === undefined ? {} : { approvalTimeoutMs: Math.round(config.approvalTimeoutSeconds * 1000) }),
  };
}

/**
 * `--transport stream,file`: the candidates in order of preference, as core takes them (codecall's
 * errors pass through). For the environment they serve: `auto` (the default) loads the fallbacks
 * after the first transport that supports it only when a run falls back to them.
 */
export async function transportsFrom(config: ToolsConfig, importModule: ModuleImporter, environment: Environment): Promise<Transport[]> {
  const names = config.transport
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return resolveTransports(names, { importModule, environment });
}
