/**
 * @codecall/mcp — codecall and the Model Context Protocol, both ways:
 *
 * - serve: `execute_code` (a `CodeTool` from `createCodeTool`) as an MCP server over stdio
 *   (`serveStdio`) or Streamable HTTP (`serveHttp`), with progress notifications and cancellation;
 * - consume: an MCP server's tools as codecall tools (`mcpTools`), so a script calls them like
 *   any other; `connectMcpServer` starts or reaches a server described as MCP clients' configs do.
 */
export { createCodecallServer, EXECUTE_CODE_ANNOTATIONS, type CodecallServerOptions } from "./code-server.js";
export { EXECUTE_CODE_OUTPUT_SHAPE, toCallToolResult } from "./call-result.js";
export { serveStdio, type StdioServeOptions, type StdioServing } from "./serve-stdio.js";
export { serveHttp, type HttpServeOptions, type HttpServing } from "./serve-http.js";
export { mcpTools, type McpToolDefinition, type McpToolListing, type McpToolsOptions, type RefusedMcpTool } from "./mcp-tools.js";
export { McpToolError } from "./tool-result.js";
export {
  connectMcpServer,
  describeSpec,
  type ConnectOptions,
  type McpHttpServerSpec,
  type McpServerSpec,
  type McpStdioServerSpec,
} from "./connect-server.js";
