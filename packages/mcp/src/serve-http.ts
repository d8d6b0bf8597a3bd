/**
 * Serving `execute_code` over MCP's Streamable HTTP transport: one endpoint (`/mcp`), one session
 * per client (its own `McpServer`, so a client's `notifications/cancelled` reaches its own run),
 * progress (and approval questions) on the request's event stream. A client that closes that
 * stream before the answer cancels the request, as a cancellation would: streams are not resumable
 * here, so nobody could read the answer.
 *
 * `execute_code` runs code, so the defaults are for one machine: the server listens on 127.0.0.1
 * and answers only requests whose `Host` (and `Origin`, when a browser sends one) names a loopback
 * address, which defeats DNS rebinding from a web page. Listening elsewhere is the caller's choice
 * (`host`), with `allowedHosts` then naming the host names clients use.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CodeTool } from "@codecall/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createCodecallServer, type CodecallServerOptions } from "./code-server.js";
import { InFlightRuns } from "./in-flight-runs.js";
import { errorWithoutId, INVALID_REQUEST, PARSE_ERROR, readMessage } from "./unreadable-message.js";

export interface HttpServeOptions extends CodecallServerOptions {
  /** Port to listen on (default 0: any free port; `url` says which). */
  port?: number;
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /** Path of the endpoint (default `/mcp`). */
  path?: string;
  /**
   * Host names (without port) a request's `Host` and `Origin` may name. Default: `localhost`,
   * `127.0.0.1` and `[::1]` when listening on a loopback address; no check otherwise.
   */
  allowedHosts?: readonly string[];
  /** Largest request body read, in bytes (default 4 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
  /** Sessions kept at once (default 32); the oldest is closed to make room for a new one. */
  maxSessions?: number;
}

/** A server answering on HTTP. */
export interface HttpServing {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Stops listening, closes every session (interrupting runs) and resolves once they have ended. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
const LOOPBACK_ADDRESSES = new Set(["127.0.0.1", "localhost", "::1"]);

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export async function serveHttp(tool: CodeTool, options: HttpServeOptions = {}): Promise<HttpServing> {
  const host = options.host ?? "127.0.0.1";
  const endpoint = options.path ?? "/mcp";
  const allowedHosts = options.allowedHosts ?? (LOOPBACK_ADDRESSES.has(host) ? LOOPBACK_HOSTS : undefined);
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 32;
  const runs = new InFlightRuns();
  const tracked = runs.track(tool);
  const sessions = new Map<string, Session>();

  async function openSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const session: Session = {
      server: createCodecallServer(tracked, options),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          for (const [oldest, old] of sessions) {
            if (sessions.size <= maxSessions) break;
            sessions.delete(oldest);
            void old.server.close();
          }
        },
      }),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    await session.server.connect(session.transport);
    await session.transport.handleRequest(request, response, body);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? "/", "http://localhost").pathname !== endpoint)
      return refuse(response, 404, `Not found; the MCP endpoint is ${endpoint}`);
    const hostProblem = allowedHosts && originProblem(request, allowedHosts);
    if (hostProblem) return refuse(response, 403, hostProblem);
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return refuse(response, 404, "Session not found (it ended, or the server restarted): initialize a new one");
      if (request.method !== "POST") return session.transport.handleRequest(request, response);
      const body = await readJsonBody(request, maxBodyBytes);
      if ("answer" in body) return answerWith(response, 400, body.answer);
      if ("problem" in body) return refuse(response, body.status, body.problem, body.code);
      cancelWhenAbandoned(session.transport, body.value, response);
      return session.transport.handleRequest(request, response, body.value);
    }
    if (request.method !== "POST") return refuse(response, 400, "No session: start one with a POST of an initialize request");
    const body = await readJsonBody(request, maxBodyBytes);
    if ("answer" in body) return answerWith(response, 400, body.answer);
    if ("problem" in body) return refuse(response, body.status, body.problem, body.code);
    if (!isInitializeRequest(body.value)) return refuse(response, 400, "No session: the first request must be initialize");
    return openSession(request, response, body.value);
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, `Internal error: ${(error as Error).message}`);
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${endpoint}`,
    async close() {
      const closing = new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.all([...sessions.values()].map((session) => session.server.close()));
      sessions.clear();
      http.closeAllConnections();
      await closing;
      await runs.settled();
    },
  };
}

/**
 * Cancels the requests of a POST whose connection the client closes before their answers: with no
 * event store the SDK cannot resume that stream, so nobody can read the answer, and a run left
 * going would keep its script (and any approval question it waits on) alive for nothing. The
 * cancellation is handed to the server as the client's own `notifications/cancelled` would be.
 */
function cancelWhenAbandoned(transport: StreamableHTTPServerTransport, body: unknown, response: ServerResponse): void {
  const ids = (Array.isArray(body) ? body : [body]).filter(isJsonRpcRequest).map((message) => message.id);
  if (ids.length === 0) return;
  response.once("close", () => {
    if (response.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the client closed the connection" } });
    }
  });
}

function isJsonRpcRequest(message: unknown): message is { id: string | number } {
  if (typeof message !== "object" || message === null) return false;
  const { method, id } = message as { method?: unknown; id?: unknown };
  return typeof method === "string" && (typeof id === "string" || typeof id === "number");
}

/** Why `Host` or `Origin` names a host this server does not answer for; undefined when both are fine. */
function originProblem(request: IncomingMessage, allowed: readonly string[]): string | undefined {
  const hostname = (value: string) => {
    try {
      return new URL(value).hostname;
    } catch {
      return undefined;
    }
  };
  const host = request.headers.host;
  const hostName = host === undefined ? undefined : hostname(`http://${host}`);
  if (hostName === undefined || !allowed.includes(hostName)) return `Host ${JSON.stringify(host ?? "")} is not allowed`;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== "null") {
    const originName = hostname(origin);
    if (originName === undefined || !allowed.includes(originName)) return `Origin ${JSON.stringify(origin)} is not allowed`;
  } else if (origin === "null") {
    return "Origin null is not allowed";
  }
  return undefined;
}

type BodyRead = { value: unknown } | { status: number; problem: string; code?: number } | { answer: JSONRPCMessage };

/**
 * The request's body as JSON, read up to `maxBytes`, and checked to be a JSON-RPC message (or a
 * batch of them): one that is not gets JSON-RPC's Invalid Request, with its id when it has one, as
 * over stdio (the SDK's transport would call it a Parse error, with id null).
 */
async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return { status: 413, problem: `Request body over ${maxBytes} bytes` };
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    return { status: 400, problem: `Parse error: ${(error as Error).message}`, code: PARSE_ERROR };
  }
  const messages = Array.isArray(value) ? (value as unknown[]) : [value];
  if (messages.length === 0) return { answer: errorWithoutId(INVALID_REQUEST, "Invalid Request: an empty batch") };
  for (const message of messages) {
    const reading = readMessage(message);
    if ("answer" in reading) return { answer: reading.answer };
  }
  return { value };
}

/** A JSON-RPC error answer with an HTTP status, as the SDK's transport gives one (by default Invalid Request for a 400). */
function refuse(response: ServerResponse, status: number, message: string, code = status === 400 ? INVALID_REQUEST : -32000): void {
  answerWith(response, status, errorWithoutId(code, message));
}

function answerWith(response: ServerResponse, status: number, answer: JSONRPCMessage): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(answer));
}
