/**
 * The shapes of `executeCode`'s options, checked before anything starts. TypeScript holds callers
 * to them; JavaScript callers, configs read from JSON and adapters that pass values on are not, and
 * a wrong shape failed late and unclearly ("tools is not iterable", "options.signal?.addEventListener
 * is not a function" as the run's error) or meant something else without a word (`allowedTools:
 * "terminal"` allowed the tools named by its letters, `env.passthrough: "HOME"` passed H, O, M and E).
 * Limits, the approval timeout, the module name and the tools themselves have their own checks.
 */
import { CodecallError } from "../errors.js";
import type { ExecuteCodeOptions } from "./execute-options.js";

const CALLBACKS = ["onApproval", "onEvent", "onStdout", "onStderr", "onToolCall"] as const;
const TEXTS = ["cwd", "interpreter", "scriptName"] as const;

/** Throws `INVALID_OPTIONS` naming the first option whose value has the wrong shape. */
export function checkRunOptionShapes(options: ExecuteCodeOptions): void {
  const given = options as unknown as Record<string, unknown>;
  for (const name of TEXTS) {
    const value = given[name];
    if (value !== undefined && (typeof value !== "string" || value.trim() === "")) refuse(name, "a non-empty string", value);
  }
  for (const name of CALLBACKS) {
    const value = given[name];
    if (value !== undefined && typeof value !== "function") refuse(name, "a function", value);
  }
  const signal = given.signal as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (
    signal !== undefined &&
    (typeof signal !== "object" || signal === null || typeof signal.aborted !== "boolean" || typeof signal.addEventListener !== "function")
  ) {
    refuse("signal", "an AbortSignal", signal);
  }
  if (given.redactSecrets !== undefined && typeof given.redactSecrets !== "boolean") refuse("redactSecrets", "true or false", given.redactSecrets);
  const env = given.env as Record<string, unknown> | undefined;
  if (env !== undefined) {
    if (!isPlainObject(env)) refuse("env", "an object ({ passthrough?, set?, host? })", env);
    checkNames("env.passthrough", env.passthrough);
    for (const name of ["set", "host"] as const) {
      if (env[name] !== undefined && !isPlainObject(env[name])) refuse(`env.${name}`, "an object of variable names to values", env[name]);
    }
  }
}

/** `tools` and `allowedTools` (shared with createCodeTool, which selects tools without a run). */
export function checkToolListShapes(tools: unknown, allowedTools: unknown): void {
  if (!Array.isArray(tools)) refuse("tools", "a list of tool definitions", tools);
  checkNames("allowedTools", allowedTools);
}

function checkNames(name: string, value: unknown): void {
  if (value !== undefined && (!Array.isArray(value) || !value.every((item) => typeof item === "string")))
    refuse(name, "a list of names (strings)", value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuse(name: string, wanted: string, value: unknown): never {
  throw new CodecallError("INVALID_OPTIONS", `${name} must be ${wanted}, got ${shapeOf(value)}`, { details: { option: name } });
}

/** What a wrong value is, for the message: its kind, and short scalars themselves. */
function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return value.length <= 40 ? `the string ${JSON.stringify(value)}` : "a string";
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  if (typeof value === "function") return "a function";
  return `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}
