/**
 * Loading code the user points at: backend/transport plugins (resolved from the working
 * directory first, so a project's own installs win, then from the CLI's own dependencies) and
 * `--tools` modules (JavaScript, or TypeScript through tsx).
 */
import { createRequire } from "node:module";
import { access } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ModuleImporter, ToolDefinition } from "@codecall/core";
import { UsageError } from "./exit-codes.js";

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
    return resolved ? import(pathToFileURL(resolved).href) : import(specifier);
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
    throw new UsageError(`Could not load tools module ${specifier}: ${(error as Error).message}`);
  }
  const found = new Set<ToolDefinition>();
  for (const [exportName, value] of Object.entries(module)) {
    if (isToolDefinition(value)) {
      found.add(value);
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
  if (found.size === 0) {
    throw new UsageError(`${specifier} exports no tool definitions; export them, e.g. \`export default [myTool]\``);
  }
  return [...found];
}

function isToolDefinition(value: unknown): value is ToolDefinition {
  if (typeof value !== "object" || value === null) return false;
  const tool = value as Partial<ToolDefinition>;
  return (
    typeof tool.name === "string" && typeof tool.description === "string" && typeof tool.parameters === "object" && typeof tool.execute === "function"
  );
}
