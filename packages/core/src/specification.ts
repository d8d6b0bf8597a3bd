/**
 * Contract versions. A plugin states which version of the Environment or Transport contract it
 * implements (`specificationVersion`), so a host never drives a plugin written for another
 * contract: the resolver and `executeCode` check it and name both versions when they differ.
 */
import { CodecallError } from "./errors.js";

/** The Environment contract this core implements. */
export const ENVIRONMENT_SPECIFICATION_VERSION = "v1";
/** The Transport contract this core implements. */
export const TRANSPORT_SPECIFICATION_VERSION = "v1";

type PluginKind = "environment" | "transport";

const EXPECTED: Readonly<Record<PluginKind, string>> = {
  environment: ENVIRONMENT_SPECIFICATION_VERSION,
  transport: TRANSPORT_SPECIFICATION_VERSION,
};

/**
 * Throws `INCOMPATIBLE_PLUGIN` unless `plugin` implements this core's contract for `kind`.
 * `source` names where the plugin came from (a package name or "the environment you passed").
 */
export function assertSpecification(kind: PluginKind, plugin: unknown, source: string): void {
  const expected = EXPECTED[kind];
  const stated = readVersion(plugin);
  if (stated === expected) return;
  const contract = kind === "environment" ? "Environment" : "Transport";
  const found =
    stated === undefined ? "states no specificationVersion (it predates versioned contracts)" : `implements ${contract} specification ${stated}`;
  throw new CodecallError(
    "INCOMPATIBLE_PLUGIN",
    `${source} ${found}, but this @codecall/core implements ${contract} specification ${expected}. Install versions of the two that match.`,
    { details: { kind, expected, found: stated ?? null } },
  );
}

/**
 * Refuses an environment, or any transport candidate, written for another contract version
 * (`environment` undefined: not known yet, only the transports are checked).
 */
export function assertRunPlugins(environment: { readonly backendId?: string } | undefined, transports: readonly { readonly id?: string }[]): void {
  if (environment) assertSpecification("environment", environment, `The environment (backend "${environment.backendId}")`);
  for (const transport of transports) assertSpecification("transport", transport, `The transport "${transport.id}"`);
}

function readVersion(plugin: unknown): string | undefined {
  if (typeof plugin !== "object" || plugin === null) return undefined;
  try {
    const version = (plugin as { specificationVersion?: unknown }).specificationVersion;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined; // a getter that throws states nothing usable
  }
}
