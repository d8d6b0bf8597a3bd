/**
 * Debug lines, off unless `CODECALL_DEBUG` (or {@link setDebugNamespaces}) selects their
 * namespace. A logger that is off costs one set lookup: messages are functions, called only when
 * their line is written. Every line is masked before it leaves — the values of the host's
 * secret-looking variables and the well-known token formats — so a command line or an error
 * message that happens to hold a secret does not print it. Callers still never pass values that
 * are secret by nature (env values, run tokens, tool arguments).
 */
import { errorMessage } from "../errors.js";
import { scrubEnv } from "../execute/env-policy.js";
import { readHostEnv } from "../execute/host-env.js";
import { knownSecretList, maskKnownSecrets, redactPatterns } from "../text/redact.js";
import { DEBUG_NAMESPACES, parseDebugNamespaces, type DebugNamespace } from "./debug-namespaces.js";

/** Where debug lines go: one call per line, without a trailing newline. */
export type DebugSink = (line: string) => void;

/** Writes a line when its namespace is enabled; `log(() => \`...\`)`. */
export interface DebugLog {
  (message: () => string): void;
  /** True while the namespace is enabled: check it before work a message needs beyond building its text. */
  readonly enabled: boolean;
  readonly namespace: DebugNamespace;
}

/** The variable that selects namespaces. */
const DEBUG_VARIABLE = "CODECALL_DEBUG";

/** The default sink: stderr on Node, Deno and Bun, the console elsewhere. */
const toConsole: DebugSink = (line) => console.error(line);

let sink: DebugSink = toConsole;
/** The enabled namespaces; undefined until {@link DEBUG_VARIABLE} is read (on first use). */
let selected: ReadonlySet<DebugNamespace> | undefined;
/** The host's secret values, longest first; read when the first line is masked. */
let hostSecrets: string[] | undefined;
/** Elapsed times count from the first line written. */
let origin: number | undefined;

/** A logger for one namespace (create it once per module, at the top). */
export function debugLogger(namespace: DebugNamespace): DebugLog {
  const log = (message: () => string) => {
    if (isEnabled(namespace)) write(namespace, message);
  };
  return Object.defineProperties(log, {
    enabled: { get: () => isEnabled(namespace) },
    namespace: { value: namespace },
  }) as DebugLog;
}

/**
 * Sends debug lines to `next` instead of the console (a log file, an embedder's logger, a test);
 * no argument restores the console. Lines arrive already masked. A sink that throws loses its
 * line, never the run.
 */
export function setDebugSink(next?: DebugSink): void {
  sink = next ?? toConsole;
}

/**
 * Selects namespaces from code, in the syntax of `CODECALL_DEBUG` (`"rpc,transport"`, `"*"`), for
 * an embedder's own debug switch; it takes precedence over the variable. `undefined` goes back to
 * the variable, read again on next use (as is the host env whose secret values lines are masked with).
 */
export function setDebugNamespaces(value: string | undefined): void {
  selected = value === undefined ? undefined : select(value, "setDebugNamespaces()");
  hostSecrets = undefined;
}

function isEnabled(namespace: DebugNamespace): boolean {
  selected ??= select(readHostEnv()[DEBUG_VARIABLE], DEBUG_VARIABLE);
  return selected.has(namespace);
}

function select(value: string | undefined, source: string): ReadonlySet<DebugNamespace> {
  const { enabled, unknown } = parseDebugNamespaces(value);
  if (unknown.length > 0) {
    const names = unknown.map((word) => JSON.stringify(word)).join(", ");
    emit(`codecall:debug ${source} names no namespace ${names}: ignored (namespaces: ${DEBUG_NAMESPACES.join(", ")}, or * for all)`);
  }
  return enabled;
}

function write(namespace: DebugNamespace, message: () => string): void {
  let text: string;
  try {
    text = message();
  } catch (error) {
    // A message is a description of work already done; failing to describe it must not undo it.
    text = `(this line could not be built: ${errorMessage(error)})`;
  }
  const now = performance.now();
  origin ??= now;
  emit(`codecall:${namespace} +${Math.round(now - origin)}ms ${mask(text)}`);
}

function mask(text: string): string {
  hostSecrets ??= knownSecretList(scrubEnv(readHostEnv()).secretValues);
  return redactPatterns(maskKnownSecrets(text, hostSecrets));
}

function emit(line: string): void {
  try {
    sink(line);
  } catch {
    // Debug output is best effort.
  }
}
