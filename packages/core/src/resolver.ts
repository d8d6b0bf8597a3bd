/**
 * Composes a backend and a transport from names, so callers (and the CLI) can write
 * `{ backend: "docker", transport: "auto" }` and install only the packages they use. Packages are
 * loaded with dynamic `import()`; a missing one gives an error that names the package to install.
 *
 * Plugin packages follow one convention: a backend exports `createEnvironment(options)` and, if it
 * declares its options with `defineOptions()`, that declaration as `environmentOptions` (the CLI
 * reads `-o` pairs and prints `--help` with it); a transport exports `createTransport(options)`. A
 * name that is not one of ours is taken as a module specifier — a package (`@acme/backend`,
 * `acme-backend`) or a path (`./my-backend.js`, taken from the working directory) — so third-party
 * plugins need no registration.
 */
import { debugLogger } from "./debug/debug-log.js";
import type { Environment } from "./environment.js";
import { CodecallError, errorMessage } from "./errors.js";
import { fallbackTransport } from "./fallback-transport.js";
import { closestName } from "./options/closest-name.js";
import type { OptionSet } from "./options/define-options.js";
import { isModulePath, moduleUrlFromWorkingDirectory } from "./plugin-path.js";
import { assertSpecification } from "./specification.js";
import type { Transport } from "./transport.js";

const log = debugLogger("transport");

/** Backend name → package. */
export const BACKEND_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  local: "@codecall/backend-local",
  docker: "@codecall/backend-docker",
  ssh: "@codecall/backend-ssh",
  modal: "@codecall/backend-modal",
  daytona: "@codecall/backend-daytona",
  singularity: "@codecall/backend-singularity",
  apptainer: "@codecall/backend-singularity",
});

/** Transport name → package. */
export const TRANSPORT_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  uds: "@codecall/transport-uds",
  stream: "@codecall/transport-stream",
  file: "@codecall/transport-file",
});

/** The order `"auto"` tries transports in: the fastest that can work first. */
export const AUTO_TRANSPORT_ORDER: readonly string[] = ["uds", "stream", "file"];

/**
 * Loads a module by specifier. The default is a plain `import()` from this package, which cannot
 * see packages that are not hoisted next to it (pnpm's isolated layout); pass your own
 * `(specifier) => import(specifier)` to resolve from your code instead. The default takes a path
 * (`./my-backend.js`, `/abs/backend.js`) from the working directory; yours gets it as written.
 */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

export interface ResolveOptions {
  importModule?: ModuleImporter;
}

/** A backend given by name (with its options), or an environment you made yourself. */
export type EnvironmentSpec = Environment | string | { backend: string; options?: Record<string, unknown> };

/** A transport given by name, `"auto"`, an instance, or a list of names/instances in order. */
export type TransportSpec = Transport | string | readonly (Transport | string)[];

/** A backend package, loaded by name (see {@link loadBackend}). */
export interface BackendPlugin {
  /** The module it was loaded from (`@codecall/backend-docker`). */
  readonly specifier: string;
  /** Its option declaration, when it exports one as `environmentOptions`. */
  readonly environmentOptions?: OptionSet;
  /** Calls its `createEnvironment(options)` and checks what it returns implements this core's contract. */
  createEnvironment(options?: Record<string, unknown>): Promise<Environment>;
}

const defaultImporter: ModuleImporter = (specifier) =>
  import(/* @vite-ignore */ isModulePath(specifier) ? moduleUrlFromWorkingDirectory(specifier) : specifier);

/** Creates (or passes through) an environment. */
export async function resolveEnvironment(spec: EnvironmentSpec, options: ResolveOptions = {}): Promise<Environment> {
  if (typeof spec !== "string" && !("backend" in spec)) {
    assertSpecification("environment", spec, `The environment you passed (backend "${spec.backendId}")`);
    return spec;
  }
  const { backend, options: backendOptions } = typeof spec === "string" ? { backend: spec, options: {} } : spec;
  return (await loadBackend(backend, options)).createEnvironment(backendOptions);
}

/** Loads a backend package by name (or module specifier) without creating an environment: for its option declaration. */
export async function loadBackend(backend: string, options: ResolveOptions = {}): Promise<BackendPlugin> {
  const specifier = packageFor(backend, BACKEND_PACKAGES);
  const module = (await loadPlugin(specifier, "backend", backend, BACKEND_PACKAGES, options.importModule)) as {
    createEnvironment?: (options: Record<string, unknown>) => unknown;
    environmentOptions?: unknown;
  };
  const create = module.createEnvironment;
  if (typeof create !== "function") {
    throw new CodecallError("UNKNOWN_BACKEND", `${specifier} does not export createEnvironment(), so it is not a codecall backend`);
  }
  const declared = module.environmentOptions;
  if (declared !== undefined && !isOptionSet(declared)) {
    throw new CodecallError(
      "UNKNOWN_BACKEND",
      `${specifier} exports environmentOptions, but not as an option declaration (defineOptions() from @codecall/core/backend-kit)`,
    );
  }
  return {
    specifier,
    ...(declared === undefined ? {} : { environmentOptions: declared }),
    async createEnvironment(backendOptions = {}) {
      const environment: unknown = await create(backendOptions);
      assertSpecification("environment", environment, specifier);
      return environment as Environment;
    },
  };
}

/** An OptionSet by its shape: a plugin may have been built against another copy of core, where `instanceof` fails. */
function isOptionSet(value: unknown): value is OptionSet {
  const set = value as Partial<Record<keyof OptionSet, unknown>> | null;
  return (
    typeof set === "object" &&
    set !== null &&
    ["parse", "fromText", "describe", "help"].every((method) => typeof set[method as keyof OptionSet] === "function")
  );
}

/** Options of {@link resolveTransports}. */
export interface ResolveTransportsOptions extends ResolveOptions {
  /** Per transport name, the options its `createTransport()` gets. */
  transportOptions?: Record<string, Record<string, unknown>>;
  /**
   * The environment the transports are for, when known. `"auto"` then loads its transports only
   * until one supports it; the ones after are loaded when a run falls back to them (see
   * fallback-transport.ts), which saves a short run their loading.
   */
  environment?: Environment;
}

/**
 * Resolves transports to instances, in order of preference. `"auto"` expands to the official
 * transports in {@link AUTO_TRANSPORT_ORDER}, skipping the ones not installed.
 */
export async function resolveTransports(spec: TransportSpec, options: ResolveTransportsOptions = {}): Promise<Transport[]> {
  const items: readonly (Transport | string)[] = typeof spec === "string" || !Array.isArray(spec) ? [spec as Transport | string] : spec;
  const out: Transport[] = [];
  for (const item of items) {
    if (typeof item !== "string") {
      assertSpecification("transport", item, `The transport you passed ("${item.id}")`);
      out.push(item);
    } else if (item === "auto") {
      out.push(...(await resolveAuto(options)));
    } else {
      out.push(await loadTransport(item, options));
    }
  }
  return out;
}

/** `"auto"`: the official transports that are installed, the ones after the first that supports `options.environment` loaded on use. */
async function resolveAuto(options: ResolveTransportsOptions): Promise<Transport[]> {
  const out: Transport[] = [];
  let served = false;
  for (const name of AUTO_TRANSPORT_ORDER) {
    if (served) {
      out.push(fallbackTransport(name, () => loadTransport(name, options)));
      continue;
    }
    const transport = await loadTransport(name, options).catch((error: unknown) => {
      if (CodecallError.isInstance(error, "PACKAGE_NOT_INSTALLED")) {
        log(() => `auto: ${name} skipped, ${TRANSPORT_PACKAGES[name]} is not installed`);
        return undefined;
      }
      throw error;
    });
    if (!transport) continue;
    out.push(transport);
    served = options.environment !== undefined && transport.supports(options.environment);
  }
  if (out.length === 0) {
    throw new CodecallError(
      "PACKAGE_NOT_INSTALLED",
      `No transport is installed. Install one, e.g. npm install ${TRANSPORT_PACKAGES.uds} ${TRANSPORT_PACKAGES.file}`,
    );
  }
  return out;
}

async function loadTransport(name: string, options: ResolveTransportsOptions): Promise<Transport> {
  const specifier = packageFor(name, TRANSPORT_PACKAGES);
  const module = await loadPlugin(specifier, "transport", name, TRANSPORT_PACKAGES, options.importModule);
  const create = (module as { createTransport?: (options: Record<string, unknown>) => unknown }).createTransport;
  if (typeof create !== "function") {
    throw new CodecallError("UNKNOWN_TRANSPORT", `${specifier} does not export createTransport(), so it is not a codecall transport`);
  }
  const transport: unknown = await create(options.transportOptions?.[name] ?? {});
  assertSpecification("transport", transport, specifier);
  return transport as Transport;
}

type PluginKind = "backend" | "transport";

/** The module of a plugin name: ours by its short name, anything else as written. */
function packageFor(name: string, known: Readonly<Record<string, string>>): string {
  // Own names only: `constructor` or `__proto__` must read as unknown, not as Object's members.
  return (Object.hasOwn(known, name) ? known[name] : undefined) ?? name;
}

function unknownPlugin(kind: PluginKind, name: string, known: Readonly<Record<string, string>>, cause?: unknown): CodecallError {
  const names = Object.keys(known);
  const closest = closestName(name, names);
  const guess = closest === undefined ? "" : ` Did you mean "${closest}"?`;
  return new CodecallError(
    kind === "backend" ? "UNKNOWN_BACKEND" : "UNKNOWN_TRANSPORT",
    `Unknown ${kind} "${name}".${guess} Choose one of: ${names.join(", ")}${kind === "transport" ? ", auto" : ""} (or give a package name)`,
    { cause, details: { name } },
  );
}

async function loadPlugin(
  specifier: string,
  kind: PluginKind,
  name: string,
  known: Readonly<Record<string, string>>,
  importModule = defaultImporter,
): Promise<unknown> {
  try {
    return await importModule(specifier);
  } catch (error) {
    // A path is no package to install: its error names the file it looked for.
    if (!isModulePath(specifier) && isModuleNotFound(error, specifier)) {
      // A plain name that is neither ours nor an installed package is most likely a typo of ours.
      if (specifier === name && !name.includes("/")) throw unknownPlugin(kind, name, known, error);
      throw new CodecallError(
        "PACKAGE_NOT_INSTALLED",
        `The ${name} ${kind} needs the package ${specifier}, which is not installed. Install it: npm install ${specifier}`,
        { cause: error, details: { package: specifier } },
      );
    }
    throw new CodecallError(kind === "backend" ? "UNKNOWN_BACKEND" : "UNKNOWN_TRANSPORT", `Could not load ${specifier}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/** True when the error says `specifier` itself is missing (not one of its dependencies). */
function isModuleNotFound(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = errorMessage(error);
  const notFound =
    code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || /Cannot find (module|package)|Module not found|not found/i.test(message);
  return notFound && message.includes(specifier);
}
