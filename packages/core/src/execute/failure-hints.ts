/**
 * One-line hints after a failed script's error, for the mistakes models make most often with a
 * generated tools module (the reference implementation mined the same classes from production
 * runs): importing the tools under another module name, importing a name the module does not
 * have, a third-party module that is not installed, treating a tool's returned dict as JSON text
 * or a string, and calling an `_async` function without `await`.
 *
 * Hints are read off the traceback's last lines only, so a script that prints such text to stdout
 * gets none, and at most one hint is given: the first that matches.
 */
import { closestName } from "../options/closest-name.js";

export interface HintContext {
  /** The tools module's name (`codecall`). */
  moduleName: string;
  /** The functions it offers, in order. */
  toolNames: readonly string[];
}

/** Module names models reach for instead of the real one (other products' stub names, generic words). */
const STUB_LOOKALIKES = /^(tools?|functions?|api|hermes_tools|codecall_tools|agent_tools|tool_api|helpers)$/;

/** How many tool names a hint lists before "…". */
const LISTED_TOOLS = 8;

/** The hint for a failure whose stderr is `stderr`, or undefined when none applies. */
export function failureHint(stderr: string, context: HintContext): string | undefined {
  const tail = stderr.trimEnd().split("\n").slice(-6).join("\n");
  const { moduleName } = context;
  const importLine = `from ${moduleName} import ${listTools(context.toolNames) || "..."}`;

  const missingModule = /ModuleNotFoundError: No module named '([^']+)'/.exec(tail)?.[1];
  if (missingModule !== undefined) {
    const top = missingModule.split(".")[0] ?? missingModule;
    if (top === moduleName) return `The tools module is \`${moduleName}\` itself, not a package: ${importLine}`;
    if (STUB_LOOKALIKES.test(top) || context.toolNames.includes(top)) return `The tools are in the \`${moduleName}\` module: ${importLine}`;
    return `\`${top}\` is not installed in this environment; use the Python standard library instead (or install it first, where the environment allows).`;
  }

  const missingName = /ImportError: cannot import name '([^']+)' from '([^']+)'/.exec(tail);
  if (missingName && missingName[2] === moduleName) {
    const closest = closestName(missingName[1] ?? "", context.toolNames);
    const suggestion = closest === undefined ? "" : ` Did you mean \`${closest}\`?`;
    return `\`${moduleName}\` has no \`${missingName[1]}\`.${suggestion} It offers: ${listTools(context.toolNames) || "no tools"}.`;
  }

  if (/the JSON object must be str, bytes or bytearray, not (dict|list)/.test(tail)) {
    return "Tool functions already return Python values (dict, list, str, ...), not JSON text: use the result directly, without json.loads().";
  }
  const valueAsString =
    /AttributeError: '(dict|list)' object has no attribute '[a-z_]+'/.exec(tail) ??
    /can only concatenate str \(not "(dict|list)"\) to str/.exec(tail);
  if (valueAsString) {
    return `That value is a ${valueAsString[1]}, not a string (tool results are parsed values): index it, or format it with json.dumps() or an f-string.`;
  }

  if (/'coroutine' object|coroutine '[^']*' was never awaited/.test(tail)) {
    return "An `_async` function returns a coroutine: `await` it inside `async def` (run with asyncio.run(), or asyncio.gather() for many), or call the plain function instead.";
  }
  return undefined;
}

function listTools(names: readonly string[]): string {
  const listed = names.slice(0, LISTED_TOOLS).join(", ");
  return names.length > LISTED_TOOLS ? `${listed}, ...` : listed;
}
