/**
 * Whether this process has OpenTelemetry set up. Importing `@opentelemetry/api` costs a short run
 * more than anything else it loads (tens of files of CommonJS), and without a tracer provider
 * registered its spans record nothing; so `codecall run` asks core to trace only when one may be.
 *
 * The API keeps whatever is registered with it (a tracer provider, a context manager, a
 * propagator, a diagnostic logger) on `globalThis`, under `Symbol.for("opentelemetry.js.api.<major>")`,
 * shared by every copy of the package. Everything that can register one in the CLI's process —
 * `NODE_OPTIONS=--import` or `--require` of a setup module, a `--tools` module — has run before a
 * script starts, so the key is there by then if it ever will be.
 */
const GLOBAL_KEY_PREFIX = "opentelemetry.js.api.";

/** True when some copy of `@opentelemetry/api` in this process has registered something. */
export function openTelemetryRegistered(): boolean {
  return Object.getOwnPropertySymbols(globalThis).some((symbol) => symbol.description?.startsWith(GLOBAL_KEY_PREFIX) === true);
}
