/**
 * Loading code the user points at: backend/transport plugins (resolved from the working
 * directory first, so a project's own installs win, then from the CLI's own dependencies) and
 * `--tools` modules (JavaScript, or TypeScript through tsx).
 */
import { createRequire } from "node:module";
import { access } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage, type ModuleImporter, type ToolDefinition } from "@codecall/core";
import { UsageError } from "./exit-codes.js";

/**
 * The plugins a local run uses, imported by name so that the command's build carries them (see
 * tsup.config.ts): a plain `import(specifier)` would load them from node_modules beside it.
 */
const CARRIED_PLUGINS: Readonly<Record<string, () => Promise<unknown>>> = {
  "@codecall/backend-local": () => import("@codecall/backend-local"),
  "@codecall/transport-uds": () => import("@codecall/transport-uds"),
};

/** An importer for the resolver: the user's project first, then the CLI's own dependencies. */
export function createModuleImporter(cwd: string): ModuleImporter {
  const requireFromCwd = createRequire(path.join(cwd, "package.json"));
  return async (specifier) => {
    if (specifier.startsWith(".") || path.isAbsolute(specifier)) return importFile(path.resolve(cwd, specifier));
    let resolved: string | undefined;
    try {
      resolved = requireFromCwd.resolve(specifier);
    } catch {
      // Not installed in the project: fall back to what the CLI itself ships.
    }
    if (resolved) return import(pathToFileURL(resolved).href) as Promise<unknown>;
    return (Object.hasOwn(CARRIED_PLUGINS, specifier) ? CARRIED_PLUGINS[specifier]!() : import(specifier)) as Promise<unknown>;
  };
}

const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

async function importFile(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
  if (TYPESCRIPT.test(file) && !isDeno) {
    const { tsImport } = await import("tsx/esm/api");
    return tsImport(url, import.meta.url);
  }
  return import(url);
}

/** Loads the tool definitions a `--tools` module exports (default export, `tools`, or named). */
export async function loadToolModule(specifier: string, cwd: string, importModule: ModuleImporter): Promise<ToolDefinition[]> {
  const local = path.resolve(cwd, specifier);
  const isFile = await access(local).then(
    () => true,
    () => false,
  );
  if (!isFile && (specifier.startsWith(".") || path.isAbsolute(specifier))) {
    throw new UsageError(`Tools module not found: ${local}`);
  }
  let module: Record<string, unknown>;
  try {
    module = (await (isFile ? importFile(local) : importModule(specifier))) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`Could not load tools module ${specifier}: ${errorMessage(error)}`);
  }
  let found: ToolDefinition[];
  try {
    found = toolsExported(module, specifier);
  } catch (error) {
    // A getter or a Proxy among the exports may throw while they are read.
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Could not read the exports of tools module ${specifier}: ${errorMessage(error)}`);
  }
  if (found.length === 0) {
    throw new UsageError(`${specifier} exports no tool definitions; export them, e.g. \`export default [myTool]\``);
  }
  return found;
}

/** The tool definitions among a module's exports; an export meant as a tool that is not one is refused, naming what it lacks. */
function toolsExported(module: Record<string, unknown>, specifier: string): ToolDefinition[] {
  const found = new Set<ToolDefinition>();
  for (const [exportName, value] of Object.entries(module)) {
    if (isToolDefinition(value)) {
      found.add(value);
    } else if (meantAsTool(value)) {
      throw new UsageError(`${specifier}: export ${exportName} is not a tool definition: it has ${lacks(value).join(", ")}`);
    } else if (Array.isArray(value)) {
      // A list is meant as tools; anything else in it is a mistake worth naming. (A single
      // non-tool export is ignored: helpers, constants, or tsx's CommonJS namespace under `default`.)
      for (const item of value) {
        if (!isToolDefinition(item)) {
          throw new UsageError(
            `${specifier}: export ${exportName} holds something that is not a tool definition (needs name, description, parameters, execute)`,
          );
        }
        found.add(item);
      }
    }
  }
  return [...found];
}

/**
 * An object with a name and a schema or an `execute` is meant as a tool; other exports (helpers,
 * constants, tsx's CommonJS namespace under `default`) are left alone.
 */
function meantAsTool(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const tool = value as Record<string, unknown>;
  return "name" in tool && ("parameters" in tool || "execute" in tool);
}

/** What a would-be tool lacks, in words. */
function lacks(tool: Record<string, unknown>): string[] {
  const wanted: Array<[key: string, type: string, words: string]> = [
    ["name", "string", "no name string"],
    ["description", "string", "no description string"],
    ["parameters", "object", "no parameters object (a JSON Schema)"],
    ["execute", "function", "no execute function"],
  ];
  return wanted.filter(([key, type]) => typeof tool[key] !== type || tool[key] === null).map(([, , words]) => words);
}

function isToolDefinition(value: unknown): value is ToolDefinition {
  if (typeof value !== "object" || value === null) return false;
  const tool = value as Partial<ToolDefinition>;
  return (
    typeof tool.name === "string" && typeof tool.description === "string" && typeof tool.parameters === "object" && typeof tool.execute === "function"
  );
}
