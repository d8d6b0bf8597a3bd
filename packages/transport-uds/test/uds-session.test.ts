import { connect, type Socket } from "node:net";
import { rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineTool, RpcDispatcher, RpcErrorCode, type TransportSession } from "@codecall/core";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { createTransport } from "../src/index.js";

const TOKEN = "t".repeat(64);
const echo = defineTool({
  name: "echo",
  description: "Returns its text.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }: { text: string }) => text,
});

/** A raw client: writes whatever it is given, reads response lines. */
class RawClient {
  readonly #socket: Socket;
  #buffer = "";
  #waiters: ((line: string) => void)[] = [];
  #lines: string[] = [];

  constructor(socketPath: string) {
    this.#socket = connect(socketPath);
    this.#socket.setEncoding("utf8");
    this.#socket.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf("\n")) !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const waiter = this.#waiters.shift();
        if (waiter) waiter(line);
        else this.#lines.push(line);
      }
    });
  }

  send(raw: string): void {
    this.#socket.write(raw);
  }

  next(): Promise<Record<string, any>> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line));
    return new Promise((resolve) => this.#waiters.push((value) => resolve(JSON.parse(value))));
  }

  async request(id: number, method: string, params: unknown): Promise<Record<string, any>> {
    this.send(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return this.next();
  }

  close(): void {
    this.#socket.destroy();
  }
}

describe("uds transport session", () => {
  let environment: LocalEnvironment;
  let runDir: string;
  let session: TransportSession;
  let dispatcher: RpcDispatcher;
  const clients: RawClient[] = [];

  const open = async (maxFrameBytes = 1 << 20, dir = runDir) => {
    dispatcher = new RpcDispatcher({ tools: [echo], token: TOKEN, environment, runId: "test" });
    session = await createTransport().open(environment, {
      runId: "test",
      runDir: dir,
      token: TOKEN,
      dispatcher,
      maxFrameBytes,
      interpreter: "python3",
    });
    return session.guestEnv.CODECALL_RPC_SOCKET!;
  };
  const client = (socketPath: string) => {
    const raw = new RawClient(socketPath);
    clients.push(raw);
    return raw;
  };

  beforeEach(async () => {
    environment = createEnvironment();
    runDir = await environment.tempDir();
  });

  afterEach(async () => {
    for (const raw of clients.splice(0)) raw.close();
    await session?.close();
    await environment.close();
    await rm(runDir, { recursive: true, force: true });
  });

  it("listens on a 0600 socket inside a 0700 directory and passes the token to the guest", async () => {
    const socketPath = await open();
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(socketPath))).mode & 0o777).toBe(0o700);
    expect(session.guestEnv.CODECALL_RPC_TOKEN).toBe(TOKEN);
  });

  it("serves a call after a good hello", async () => {
    const raw = client(await open());
    expect(await raw.request(0, "hello", { token: TOKEN, protocol: 1 })).toEqual({ jsonrpc: "2.0", id: 0, result: { protocol: 1 } });
    expect(await raw.request(1, "tools/call", { name: "echo", arguments: { text: "hi" } })).toEqual({ jsonrpc: "2.0", id: 1, result: "hi" });
  });

  it("refuses a wrong or missing token, and calls on that connection", async () => {
    const socketPath = await open();
    const wrong = client(socketPath);
    expect((await wrong.request(0, "hello", { token: "nope", protocol: 1 })).error.code).toBe(RpcErrorCode.Unauthorized);
    expect((await wrong.request(1, "tools/call", { name: "echo", arguments: { text: "x" } })).error.code).toBe(RpcErrorCode.Unauthorized);
    const missing = client(socketPath);
    expect((await missing.request(0, "hello", { protocol: 1 })).error.code).toBe(RpcErrorCode.Unauthorized);
    const skipped = client(socketPath);
    expect((await skipped.request(5, "tools/call", { name: "echo", arguments: { text: "x" } })).error).toMatchObject({
      code: RpcErrorCode.Unauthorized,
      message: "Unauthorized: send hello with the run token first",
    });
    expect(dispatcher.toolCallsMade).toBe(0);
  });

  it("answers garbage with an error and keeps serving the connection", async () => {
    const raw = client(await open());
    raw.send("this is not json\n");
    expect(await raw.next()).toMatchObject({ id: null, error: { code: RpcErrorCode.ParseError } });
    raw.send("\u0000\u0001\u00ff{{{\n[1,2]\n");
    expect((await raw.next()).error.code).toBe(RpcErrorCode.ParseError);
    expect((await raw.next()).error.code).toBe(RpcErrorCode.InvalidRequest);
    await raw.request(0, "hello", { token: TOKEN, protocol: 1 });
    expect((await raw.request(2, "tools/call", { name: "echo", arguments: { text: "after garbage" } })).result).toBe("after garbage");
  });

  it("refuses an oversized frame with its own id, without buffering it, and goes on", async () => {
    const raw = client(await open(4096));
    await raw.request(0, "hello", { token: TOKEN, protocol: 1 });
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(2_000_000) } },
    });
    raw.send(`${huge}\n`);
    const refused = await raw.next();
    expect(refused.id).toBe(7);
    expect(refused.error.code).toBe(RpcErrorCode.FrameTooLarge);
    expect(refused.error.message).toMatch(/exceeds the 4096-byte frame limit/);
    expect((await raw.request(8, "tools/call", { name: "echo", arguments: { text: "next" } })).result).toBe("next");
  });

  it("keeps accepting new connections for the whole session", async () => {
    const socketPath = await open();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const raw = client(socketPath);
        await raw.request(0, "hello", { token: TOKEN, protocol: 1 });
        return (await raw.request(1, "tools/call", { name: "echo", arguments: { text: `c${index}` } })).result;
      }),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, (_, index) => `c${index}`));
  });

  it("puts the socket in its own short directory when the run dir path is too long for one", async () => {
    const longDir = path.join(runDir, "d".repeat(60), "e".repeat(60));
    await environment.execute(`mkdir -p '${longDir}'`);
    const socketPath = await open(1 << 20, longDir);
    expect(socketPath.startsWith("/tmp/codecall-rpc-")).toBe(true);
    const raw = client(socketPath);
    expect((await raw.request(0, "hello", { token: TOKEN, protocol: 1 })).result).toEqual({ protocol: 1 });
    await session.close();
    await expect(stat(path.dirname(socketPath))).rejects.toThrow();
  });

  it("stops listening and drops connections on close", async () => {
    const socketPath = await open();
    const raw = client(socketPath);
    await raw.request(0, "hello", { token: TOKEN, protocol: 1 });
    await session.close();
    await expect(stat(socketPath)).rejects.toThrow();
    const refused = await new Promise<string>((resolve) =>
      connect(socketPath).on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "")),
    );
    expect(["ENOENT", "ECONNREFUSED"]).toContain(refused);
  });
});
