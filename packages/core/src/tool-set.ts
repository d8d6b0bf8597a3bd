/**
 * Checks a tool set when it is built (`createCodeTool`, `executeCode`, the CLI), before anything
 * is started: every name must be usable as a function of the Python stub module, no two tools may
 * share one, and every parameters schema must be one the validator can enforce in full. A tool
 * that fails here would otherwise fail only once a run had opened its transport, or at the
 * script's first call. A `needsApproval` that is neither a boolean nor a function is refused too:
 * a truthy string would otherwise be read as "no approval needed" by nothing at all.
 */
import { CodecallError, errorMessage } from "./errors.js";
import { assertToolName } from "./guest/python-names.js";
import { generatePythonModule } from "./guest/python-stub.js";
import { compileSchema } from "./schema/compile-schema.js";
import type { ToolDefinition } from "./tool.js";

/** Throws `INVALID_TOOL` naming the first tool that cannot be offered to a script, and why. */
export function checkToolSet(tools: readonly ToolDefinition[]): void {
  const names = new Set<string>();
  for (const tool of tools) {
    assertToolName(tool?.name);
    if (names.has(tool.name)) throw new CodecallError("INVALID_TOOL", `Two tools are named ${tool.name}`, { details: { tool: tool.name } });
    names.add(tool.name);
    const rule: unknown = tool.needsApproval;
    if (rule !== undefined && typeof rule !== "boolean" && typeof rule !== "function") {
      throw new CodecallError("INVALID_TOOL", `Tool ${tool.name}: needsApproval must be a boolean or a function, got ${typeof rule}`, {
        details: { tool: tool.name },
      });
    }
    try {
      compileSchema(tool.parameters);
    } catch (error) {
      throw new CodecallError("INVALID_TOOL", `Tool ${tool.name}: its parameters schema is refused: ${errorMessage(error)}`, {
        cause: error,
        details: { tool: tool.name },
      });
    }
  }
  // What is left to check is whether the stub module can be written (two parameters that map to
  // one Python name, a tool `x` beside a tool `x_async`...): writing it says so.
  generatePythonModule({ tools });
}
