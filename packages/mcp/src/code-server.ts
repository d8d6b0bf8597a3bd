/**
 * `execute_code` as an MCP tool: one `McpServer` (for one connection) whose only tool runs the
 * script with a `CodeTool` from `createCodeTool`. While the script runs, a client that asked for
 * progress (a `progressToken`) gets its output lines and tool calls as progress notifications; a
 * client that cancels the request (`notifications/cancelled`, or a closed connection) interrupts
 * the script, whose whole process tree is ended. Calls to tools that need approval are asked of
 * a client that supports elicitation; the description the client lists says what happens to them.
 *
 * A tool made with `session` (`createCodeTool({ session })`) keeps one Python session per MCP
 * connection — per MCP session over Streamable HTTP, per process over stdio — and ends it when the
 * connection closes; the tool then takes `reset` too.
 */
import { randomUUID } from "node:crypto";
import type { CodeTool, ExecuteCodeResult, RunEvent } from "@codecall/core";
import { callSafely } from "@codecall/core/plugin-kit";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { EXECUTE_CODE_OUTPUT_SHAPE, toCallToolResult } from "./call-result.js";
import { clientCanElicit, elicitingApprover } from "./elicit-approval.js";
import { packageVersion } from "./package-info.js";
import { ProgressReporter } from "./progress-reporter.js";

export interface CodecallServerOptions {
  /** The server's name in MCP's `serverInfo` (default `codecall`). */
  name?: string;
  /** Shortest time between two progress notifications of one request, in ms (default 100). */
  progressIntervalMs?: number;
  /**
   * Called when a run ends (also an interrupted one, whose answer the client no longer reads): for a
   * server's log. A throw (or a rejected promise) is ignored: the client still gets its result.
   */
  onResult?: (result: ExecuteCodeResult) => unknown;
  /**
   * Ask the client (through elicitation) about the calls that need approval, when it declared
   * that it can be asked (default true). A client that cannot be asked, or every client with
   * `false`, leaves them to the `CodeTool`'s own `onApproval`: without one they are denied.
   */
  elicitApprovals?: boolean;
  /** Values masked in the arguments an approval question shows (well-known token formats are masked anyway). */
  knownSecrets?: readonly string[];
}

/**
 * What a client may assume about `execute_code` (MCP's hints): a script can do anything its
 * environment and tools allow — write files, call out to the network, change what its tools reach —
 * and running it twice is two runs.
 */
export const EXECUTE_CODE_ANNOTATIONS: ToolAnnotations = Object.freeze({
  title: "Run a Python script with tools",
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

/** An MCP server offering `tool` (made by `createCodeTool`), ready to `connect()` to one transport. */
export function createCodecallServer(tool: CodeTool, options: CodecallServerOptions = {}): McpServer {
  const server = new McpServer({ name: options.name ?? "codecall", version: packageVersion() });
  const codeDescription = (tool.parameters.properties?.code as { description?: string } | undefined)?.description ?? "Python 3 source to run.";
  const canElicit = () => options.elicitApprovals !== false && clientCanElicit(server.server);
  // One server serves one connection: its calls are one conversation, whose session ends with it.
  const conversationKey = `mcp-${randomUUID()}`;
  const resetDescription = (tool.parameters.properties?.reset as { description?: string } | undefined)?.description;
  const registered = server.registerTool(
    tool.name,
    {
      title: EXECUTE_CODE_ANNOTATIONS.title,
      description: tool.description,
      // Strict, as core's own parameters are: the listed schema says `additionalProperties: false`
      // (what strict clients require), and an argument the tool does not take is refused, not dropped.
      inputSchema: z.strictObject({
        code: z.string().describe(codeDescription),
        ...(tool.keepsState
          ? {
              reset: z
                .boolean()
                .optional()
                .describe(resetDescription ?? "Start from a fresh Python session first."),
            }
          : {}),
      }),
      outputSchema: EXECUTE_CODE_OUTPUT_SHAPE,
      annotations: EXECUTE_CODE_ANNOTATIONS,
    },
    async ({ code, reset }, extra) => {
      const token = extra._meta?.progressToken;
      const progress =
        token === undefined
          ? undefined
          : new ProgressReporter(
              (count, message) =>
                extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: count, message } }),
              options.progressIntervalMs === undefined ? {} : { minIntervalMs: options.progressIntervalMs },
            );
      const result = await tool.execute(
        { code, ...(reset === true ? { reset: true } : {}) },
        {
          signal: extra.signal,
          conversationKey,
          ...(canElicit() ? { onApproval: elicitingApprover(server.server, extra.requestId, options) } : {}),
          ...(progress
            ? {
                onEvent: (event: RunEvent) => {
                  if (event.type === "stdout") progress.output(event.chunk);
                  else if (event.type === "tool-call-start") progress.note(`[calling ${event.tool}]`);
                  else if (event.type === "approval-requested") progress.note(`[waiting for approval of ${event.tool}]`);
                },
              }
            : {}),
        },
      );
      await progress?.close();
      // A log that fails must not cost the client its result (the server's own error would replace it).
      callSafely(options.onResult, result);
      return toCallToolResult(result);
    },
  );
  if (tool.keepsState) {
    const closed = server.server.onclose;
    server.server.onclose = () => {
      void tool.endConversation(conversationKey);
      closed?.();
    };
  }
  // The description must say what happens to calls that need approval with this client, which is
  // known once it has initialized (before it lists the tools).
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    if (canElicit() && !tool.canApprove) registered.description = tool.describe({ canApprove: true });
    initialized?.();
  };
  return server;
}
