/**
 * A session's tools stay those of its first call's tool set in name and schema (its stubs are
 * made from them), but each call runs the implementations of the tool that made the call: a
 * platform that builds its tools per request (a tool closing over that request's user, token or
 * connection) must not have a later request's cell call an earlier request's closures.
 */
import type { NeedsApprovalContext } from "../approval.js";
import type { ToolDefinition } from "../tool.js";

/**
 * `tool` as a session holds it: same name, description and schemas; `execute` (and a
 * `needsApproval` function) of `current()`, the running cell's tool of that name, else `tool`.
 */
export function routedTool(tool: ToolDefinition, current: () => ToolDefinition | undefined): ToolDefinition {
  const pick = () => current() ?? tool;
  const rule = tool.needsApproval;
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.returns === undefined ? {} : { returns: tool.returns }),
    ...(typeof rule === "function"
      ? {
          needsApproval: (args: unknown, context: NeedsApprovalContext) => {
            const picked = pick().needsApproval;
            return typeof picked === "function" ? picked(args, context) : picked === true;
          },
        }
      : rule === undefined
        ? {}
        : { needsApproval: rule }),
    execute: (args, context) => pick().execute(args, context),
  };
}
