/** Small helpers for dispatcher tests: a stand-in Environment, frame builders and a checked send. */
import { expect } from "vitest";
import type { Environment } from "../../src/environment.js";
import { RpcDispatcher, type RpcConnection, type RpcDispatcherOptions } from "../../src/rpc/dispatcher.js";
import type { ToolDefinition } from "../../src/tool.js";

export const TOKEN = "a".repeat(64);

/** Tools in these tests never touch their environment; it only has to be passed through. */
export const fakeEnvironment = {
  specificationVersion: "v1",
  backendId: "fake",
  capabilities: { hostSockets: false, streamingStdio: false },
} as unknown as Environment;

export function frame(id: number | string, method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
}

export const hello = (id: number | string = 0, token: unknown = TOKEN, protocol: unknown = 1) => frame(id, "hello", { token, protocol });
export const call = (id: number | string, name: string, args?: unknown) =>
  frame(id, "tools/call", args === undefined ? { name } : { name, arguments: args });

export interface Response {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Sends one frame and parses the answer, checking it is one NDJSON line ending in exactly one "\n". */
export async function send(connection: RpcConnection, line: string): Promise<Response> {
  return decode(await connection.handleFrame(line));
}

export function decode(text: string): Response {
  expect(text.endsWith("\n")).toBe(true);
  expect(text.indexOf("\n")).toBe(text.length - 1);
  const response = JSON.parse(text) as Response;
  expect(response.jsonrpc).toBe("2.0");
  expect("result" in response !== "error" in response).toBe(true);
  return response;
}

export const echoTool: ToolDefinition<{ text: string; times?: number }, string> = {
  name: "echo",
  description: "Echoes its text.",
  parameters: {
    type: "object",
    properties: { text: { type: "string" }, times: { type: "integer", minimum: 1 } },
    required: ["text"],
    additionalProperties: false,
  },
  execute: ({ text, times = 1 }) => text.repeat(times),
};

export function makeDispatcher(options: Partial<RpcDispatcherOptions> = {}): RpcDispatcher {
  return new RpcDispatcher({ tools: [echoTool], token: TOKEN, environment: fakeEnvironment, runId: "run-1", ...options });
}

/** A connection that has already said hello. */
export async function openConnection(dispatcher: RpcDispatcher): Promise<RpcConnection> {
  const connection = dispatcher.createConnection();
  const response = await send(connection, hello());
  expect(response.result).toEqual({ protocol: 1 });
  return connection;
}

/** A promise plus its resolver, for probes that say "the tool has started". */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
