/**
 * Which names a tool may take in the guest module. A tool becomes a module-level function of the
 * generated stub (`def get_issue(...)`) that the script imports, so its name must be one Python
 * can import and must not replace anything the module itself, or the script, relies on.
 */
import { CodecallError } from "../errors.js";

/** Python's hard keywords: `def class(...)` is a syntax error, so the module would not import. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

/**
 * Python's builtins (3.8 to 3.13). A module-level `def len(...)` would shadow the builtin for the
 * module's own client code (which calls `len`, `str`, `isinstance`, ...) and, after
 * `from codecall import *`, for the script too.
 */
export const PYTHON_BUILTINS: ReadonlySet<string> = new Set(
  (
    "ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError " +
    "BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError " +
    "ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception " +
    "ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError " +
    "ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError " +
    "KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplemented " +
    "NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError " +
    "PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning " +
    "StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError " +
    "TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError " +
    "UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool " +
    "breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir divmod " +
    "enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int " +
    "isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print " +
    "property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip"
  ).split(" "),
);

/** Public names the stub module defines itself (see python-stub.ts and python/_codecall_calls.py). */
export const STUB_MODULE_NAMES: ReadonlySet<string> = new Set(["ToolError", "call_tool", "call_tool_async", "annotations"]);

/** ASCII only: Python folds non-ASCII identifiers with NFKC, so `ﬁle` would import as `file`. */
const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The rule, as the error messages and the README state it. */
export const TOOL_NAME_RULE =
  "a tool name must be an ASCII Python identifier that starts with a letter (letters, digits and _ only), " +
  "and must not be a Python keyword (class, import, None, ...), a Python builtin (print, open, len, ...) " +
  "or a name the stub module defines (ToolError, call_tool, call_tool_async, annotations)";

/** True when `name` can be a Python module or function name (ASCII, not a keyword). */
export function isPythonIdentifier(name: string): boolean {
  return ASCII_IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name);
}

/** Why `name` cannot be a tool's name in the guest module, or undefined when it can. */
export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "") return "it is empty or not a string";
  if (!ASCII_IDENTIFIER.test(name)) return "it is not an ASCII Python identifier";
  if (name.startsWith("_")) return "it starts with _ (the module keeps those names private)";
  if (PYTHON_KEYWORDS.has(name)) return "it is a Python keyword";
  if (PYTHON_BUILTINS.has(name)) return "it would shadow a Python builtin";
  if (STUB_MODULE_NAMES.has(name)) return "the stub module defines that name itself";
  return undefined;
}

/** Throws `INVALID_TOOL` with the name, the reason and the rule when a tool may not take `name`. */
export function assertToolName(name: unknown): void {
  const problem = toolNameProblem(name);
  if (problem) {
    throw new CodecallError("INVALID_TOOL", `Tool name ${JSON.stringify(name)} is refused: ${problem}. The rule: ${TOOL_NAME_RULE}.`, {
      details: { tool: name },
    });
  }
}

/** The guest runtime's modules, shipped beside the tools module (see python-guest.ts). */
export const GUEST_RUNTIME_MODULES = {
  protocol: "_codecall_protocol",
  calls: "_codecall_calls",
  client: "_codecall_client",
  startup: "sitecustomize",
} as const;

/** The script's own file in the run dir is `script.py`: a tools module of that name would replace it. */
const SCRIPT_MODULE = "script";

/** Throws `INVALID_OPTIONS` when the guest module cannot be imported under `name`. */
export function assertModuleName(name: string): void {
  if (!isPythonIdentifier(name)) {
    throw new CodecallError("INVALID_OPTIONS", `moduleName must be an ASCII Python identifier (not a keyword), got ${JSON.stringify(name)}`);
  }
  const taken: readonly string[] = [...Object.values(GUEST_RUNTIME_MODULES), SCRIPT_MODULE];
  if (taken.includes(name)) {
    throw new CodecallError("INVALID_OPTIONS", `moduleName ${JSON.stringify(name)} is taken by the run's own files (${taken.join(", ")})`);
  }
}
