/**
 * Composes a backend and a transport from names, so callers (and the CLI) can write
 * `{ backend: "docker", transport: "auto" }` and install only the packages they use. Packages are
 * loaded with dynamic `import()`; a missing one gives an error that names the package to install.
 *
 * Plugin packages follow one convention: a backend exports `createEnvironment(options)`, a
 * transport exports `createTransport(options)`. A name containing `/` or starting with `.` is
 * taken as a module specifier, so third-party plugins need no registration.
 */
import type { Environment } from "./environment.js";
import { CodecallError, errorMessage } from "./errors.js";
import type { Transport } from "./transport.js";

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
 * `(specifier) => import(specifier)` to resolve from your code instead.
 */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

export interface ResolveOptions {
  importModule?: ModuleImporter;
}

/** A backend given by name (with its options), or an environment you made yourself. */
export type EnvironmentSpec = Environment | string | { backend: string; options?: Record<string, unknown> };

/** A transport given by name, `"auto"`, an instance, or a list of names/instances in order. */
export type TransportSpec = Transport | string | readonly (Transport | string)[];

const defaultImporter: ModuleImporter = (specifier) => import(/* @vite-ignore */ specifier);

/** Creates (or passes through) an environment. */
export async function resolveEnvironment(spec: EnvironmentSpec, options: ResolveOptions = {}): Promise<Environment> {
  if (typeof spec !== "string" && !("backend" in spec)) return spec;
  const { backend, options: backendOptions } = typeof spec === "string" ? { backend: spec, options: {} } : spec;
  const specifier = packageFor("backend", backend, BACKEND_PACKAGES);
  const module = await loadPlugin(specifier, "backend", backend, options.importModule);
  const create = (module as { createEnvironment?: unknown }).createEnvironment;
  if (typeof create !== "function") {
    throw new CodecallError("UNKNOWN_BACKEND", `${specifier} does not export createEnvironment(), so it is not a codecall backend`);
  }
  return (await create(backendOptions ?? {})) as Environment;
}

/**
 * Resolves transports to instances, in order of preference. `"auto"` expands to the official
 * transports in {@link AUTO_TRANSPORT_ORDER}, skipping the ones not installed.
 */
export async function resolveTransports(
  spec: TransportSpec,
  options: ResolveOptions & { transportOptions?: Record<string, Record<string, unknown>> } = {},
): Promise<Transport[]> {
  const items: readonly (Transport | string)[] = typeof spec === "string" || !Array.isArray(spec) ? [spec as Transport | string] : spec;
  const out: Transport[] = [];
  for (const item of items) {
    if (typeof item !== "string") {
      out.push(item);
    } else if (item === "auto") {
      for (const name of AUTO_TRANSPORT_ORDER) {
        const transport = await loadTransport(name, options).catch((error: unknown) => {
          if (CodecallError.isInstance(error, "PACKAGE_NOT_INSTALLED")) return undefined;
          throw error;
        });
        if (transport) out.push(transport);
      }
      if (out.length === 0) {
        throw new CodecallError(
          "PACKAGE_NOT_INSTALLED",
          `No transport is installed. Install one, e.g. npm install ${TRANSPORT_PACKAGES.uds} ${TRANSPORT_PACKAGES.file}`,
        );
      }
    } else {
      out.push(await loadTransport(item, options));
    }
  }
  return out;
}

async function loadTransport(
  name: string,
  options: ResolveOptions & { transportOptions?: Record<string, Record<string, unknown>> },
): Promise<Transport> {
  const specifier = packageFor("transport", name, TRANSPORT_PACKAGES);
  const module = await loadPlugin(specifier, "transport", name, options.importModule);
  const create = (module as { createTransport?: unknown }).createTransport;
  if (typeof create !== "function") {
    throw new CodecallError("UNKNOWN_TRANSPORT", `${specifier} does not export createTransport(), so it is not a codecall transport`);
  }
  return (await create(options.transportOptions?.[name] ?? {})) as Transport;
}

function packageFor(kind: "backend" | "transport", name: string, known: Readonly<Record<string, string>>): string {
  if (name.includes("/") || name.startsWith(".")) return name;
  const specifier = known[name];
  if (specifier) return specifier;
  const code = kind === "backend" ? "UNKNOWN_BACKEND" : "UNKNOWN_TRANSPORT";
  const choices = Object.keys(known).join(", ");
  throw new CodecallError(
    code,
    `Unknown ${kind} "${name}". Choose one of: ${choices}${kind === "transport" ? ", auto" : ""} (or give a package name)`,
    {
      details: { name },
    },
  );
}

async function loadPlugin(specifier: string, kind: string, name: string, importModule = defaultImporter): Promise<unknown> {
  try {
    return await importModule(specifier);
  } catch (error) {
    if (isModuleNotFound(error, specifier)) {
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
