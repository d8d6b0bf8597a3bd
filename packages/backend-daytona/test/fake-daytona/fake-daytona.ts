/**
 * A fake Daytona — control API and toolbox daemon on one `node:http` port — for running the real
 * Daytona SDK in tests. Commands really run, on this machine, in the shapes the daemon gives them:
 *
 * - `process/execute`: no shell (the daemon's naive splitter), stdout and stderr in one buffer,
 *   HTTP 408 with the output dropped when the request's timeout passes;
 * - sessions: one shell each running its commands one after another (session-shell.ts), async
 *   commands with input through a FIFO (a newline added to each input, echoed into the log unless
 *   `suppressInputEcho`), the log as labelled lines, sync commands answered after a 50 ms poll of
 *   the exit file, the log WebSocket sending the file in 1 KiB messages polled every 20 ms and
 *   closed only after a second of quiet once the exit code is there;
 * - files: multipart bulk upload (busboy; a temp file renamed over the path, as the daemon does
 *   now), bulk download (file or error parts; the path opened as the daemon opens it, so a FIFO
 *   there holds the download until a writer comes) and file info (`os.Stat`, Go's mode string).
 *
 * Knobs let tests break it the ways a real service breaks: a refused key, a sandbox that fails to
 * start, a sandbox deleted under running commands (its requests left hanging, as behind a proxy),
 * a log stream dropped mid-command, the connection of a command or of an input call cut.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import type { Stats } from "node:fs";
import { open, readFile, rename, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { tmpdir } from "node:os";
import path from "node:path";
import busboy from "busboy";
import { WebSocketServer, type WebSocket } from "ws";
import type { LogFraming } from "./log-framing.js";
import { parseCommand } from "./parse-command.js";
import { SessionShell, type SessionCommand } from "./session-shell.js";

export interface FakeDaytonaOptions {
  /** The key the fake accepts (default "fake-key"). */
  apiKey?: string;
  /** The shell sessions run in (the daemon uses the sandbox user's; default /bin/sh). */
  shell?: string;
  /** Sandboxes without python3: their sessions' PATH has every program of this machine's but python. */
  withoutPython?: boolean;
}

export interface FakeSandbox {
  readonly id: string;
  readonly name: string;
  state: string;
  errorReason?: string;
  readonly labels: Record<string, string>;
  readonly params: Record<string, unknown>;
  readonly home: string;
  /** The sandbox's own temp dir (`TMPDIR` of its commands), as a real sandbox has its own /tmp. */
  readonly tmp: string;
  /** Where its sessions keep their logs. */
  readonly dir: string;
  readonly sessions: Map<string, SessionShell>;
}

/** One request as the fake saw it. */
export interface RequestRecord {
  method: string;
  path: string;
  authorization: string | undefined;
}

export class FakeDaytona {
  readonly apiKey: string;
  readonly requests: RequestRecord[] = [];
  readonly sandboxes = new Map<string, FakeSandbox>();
  /** A sandbox created now fails to start with this reason. */
  failNextStart: string | undefined;
  /** The next log WebSocket opened is cut after this many messages. */
  dropNextLogStreamAfter: number | undefined;
  /**
   * Where log WebSocket messages end, besides the ends of the fake's reads of the log: called for
   * each log stream opened, it gives the stream's framing (see log-framing.ts), which cuts each
   * stretch of the log about to be sent. Lets tests frame the log every way a daemon could.
   */
  logFraming: (() => LogFraming) | undefined;
  /** Bytes the log WebSocket reads (and so at most sends in one message) per poll: the daemon's 1 KiB unless set. */
  logReadBytes = 1024;
  /** How long the log WebSocket waits before it looks at a log that had nothing new: the daemon's 20 ms unless set. */
  logPollMs = 20;
  /** The connection of the next synchronous session command is cut while it runs. */
  dropNextSyncCommand = false;
  /**
   * The connection of the next session input call whose text this accepts is cut once the input
   * reached the command (the worst case: the command got it, the caller cannot know).
   */
  dropInputWhen: ((data: string) => boolean) | undefined;
  /**
   * Called once a file-info request has looked at its path and before it answers: lets a test
   * change the path in between (a script that swaps in a FIFO after a tool checked the path).
   */
  onFileInfo: ((path: string) => void | Promise<void>) | undefined;
  readonly #shell: string;
  /** PATH of session commands. */
  readonly #path: string | undefined;
  readonly #server: Server;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #sockets = new Set<Socket>();
  /** Requests and sockets of deleted sandboxes, left hanging (a proxy that never answers). */
  readonly #hanging = new Set<ServerResponse | WebSocket>();
  /** Every sandbox's home, temp dir and session logs; removed on close. Short: socket paths live below it. */
  readonly #stateDir = mkdtempSync(path.join(tmpdir(), "cc-fake-dt-"));
  #port = 0;

  private constructor(options: FakeDaytonaOptions) {
    this.apiKey = options.apiKey ?? "fake-key";
    this.#shell = options.shell ?? "/bin/sh";
    this.#path = options.withoutPython ? pathWithoutPython(path.join(this.#stateDir, "bin")) : process.env.PATH;
    this.#server = createServer((request, response) => void this.#handle(request, response));
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    this.#server.on("upgrade", (request, socket, head) => this.#upgrade(request, socket as Socket, head));
  }

  static async start(options: FakeDaytonaOptions = {}): Promise<FakeDaytona> {
    const fake = new FakeDaytona(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    fake.#port = (fake.#server.address() as { port: number }).port;
    return fake;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }

  /** Options for the backend that point it here (all three, so the SDK reads no env or .env). */
  get connection(): { apiKey: string; apiUrl: string; target: string } {
    return { apiKey: this.apiKey, apiUrl: this.apiUrl, target: "fake" };
  }

  /** Requests whose path contains `fragment`. */
  requestsTo(fragment: string): RequestRecord[] {
    return this.requests.filter((record) => record.path.includes(fragment));
  }

  /** Deletes a sandbox behind the backend's back: its processes die, its open requests hang. */
  deleteSandbox(id: string): void {
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) throw new Error(`no sandbox ${id}`);
    this.#destroy(sandbox);
  }

  async close(): Promise<void> {
    for (const sandbox of this.sandboxes.values()) this.#destroy(sandbox);
    for (const client of this.#wss.clients) client.terminate();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.#stateDir, { recursive: true, force: true });
  }

  // --- routing -------------------------------------------------------------------------------

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    this.requests.push({ method: request.method ?? "GET", path: url.pathname, authorization: request.headers.authorization });
    try {
      if (url.pathname.startsWith("/api/socket.io")) return send(response, 404, { message: "no events here" });
      if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
        return send(response, 401, { statusCode: 401, message: "Invalid credentials", error: "Unauthorized" });
      }
      const toolbox = /^\/toolbox\/([^/]+)(\/.*)$/.exec(url.pathname);
      if (toolbox) {
        const sandbox = this.sandboxes.get(toolbox[1]!);
        if (!sandbox || sandbox.state === "destroyed") {
          // Behind the proxy, a deleted sandbox's daemon does not answer at all.
          if (sandbox) return void this.#hanging.add(response);
          return send(response, 404, { statusCode: 404, message: "sandbox not found" });
        }
        return await this.#toolbox(sandbox, request, response, toolbox[2]!);
      }
      if (url.pathname.startsWith("/api/")) return await this.#api(request, response, url.pathname.slice(4));
      send(response, 404, { message: `no route ${url.pathname}` });
    } catch (error) {
      send(response, 500, { statusCode: 500, message: (error as Error).message });
    }
  }

  async #api(request: IncomingMessage, response: ServerResponse, route: string): Promise<void> {
    const method = request.method;
    if (route === "/config") return send(response, 200, {});
    if (route === "/sandbox" && method === "POST") return this.#create(response, (await readJson(request)) as Record<string, unknown>);
    const match = /^\/sandbox\/([^/]+)(\/start|\/toolbox-proxy-url)?$/.exec(route);
    const sandbox = match ? this.#find(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !sandbox) return send(response, 404, { statusCode: 404, message: `Sandbox with ID or name ${match?.[1]} not found` });
    if (method === "GET" && !match[2]) return send(response, 200, this.#dto(sandbox));
    if (method === "GET" && match[2] === "/toolbox-proxy-url") return send(response, 200, { url: this.#toolboxUrl() });
    if (method === "POST" && match[2] === "/start") {
      sandbox.state = "started";
      return send(response, 200, this.#dto(sandbox));
    }
    if (method === "DELETE" && !match[2]) {
      this.#destroy(sandbox);
      this.sandboxes.delete(sandbox.id);
      return send(response, 200, this.#dto(sandbox));
    }
    send(response, 404, { statusCode: 404, message: `no route ${method} ${route}` });
  }

  #create(response: ServerResponse, params: Record<string, unknown>): void {
    const name = typeof params.name === "string" ? params.name : undefined;
    if (name && this.#find(name)) return send(response, 409, { statusCode: 409, message: `Sandbox with name ${name} already exists` });
    const id = randomUUID();
    const dir = path.join(this.#stateDir, id.slice(0, 8));
    const home = path.join(dir, "home");
    const tmp = path.join(dir, "tmp");
    mkdirSync(home, { recursive: true });
    mkdirSync(tmp);
    const sandbox: FakeSandbox = {
      id,
      name: name ?? id,
      state: "started",
      labels: (params.labels as Record<string, string>) ?? {},
      params,
      home,
      tmp,
      dir,
      sessions: new Map(),
    };
    if (this.failNextStart !== undefined) {
      // Answered as starting; the next look shows the failure (what the SDK waits through).
      sandbox.state = "starting";
      const reason = this.failNextStart;
      this.failNextStart = undefined;
      setTimeout(() => {
        sandbox.state = "error";
        sandbox.errorReason = reason;
      }, 50);
    }
    this.sandboxes.set(id, sandbox);
    send(response, 200, this.#dto(sandbox));
  }

  #find(idOrName: string): FakeSandbox | undefined {
    return this.sandboxes.get(idOrName) ?? [...this.sandboxes.values()].find((sandbox) => sandbox.name === idOrName);
  }

  #dto(sandbox: FakeSandbox): Record<string, unknown> {
    return {
      id: sandbox.id,
      organizationId: "fake-org",
      name: sandbox.name,
      user: "daytona",
      env: sandbox.params.env ?? {},
      labels: sandbox.labels,
      public: false,
      target: "fake",
      cpu: 1,
      gpu: 0,
      memory: 1,
      disk: 3,
      state: sandbox.state,
      ...(sandbox.errorReason ? { errorReason: sandbox.errorReason } : {}),
      autoStopInterval: sandbox.params.autoStopInterval ?? 15,
      toolboxProxyUrl: this.#toolboxUrl(),
    };
  }

  #toolboxUrl(): string {
    return `http://127.0.0.1:${this.#port}/toolbox`;
  }

  #destroy(sandbox: FakeSandbox): void {
    sandbox.state = "destroyed";
    for (const session of sandbox.sessions.values()) session.kill();
    killTree(sandbox.id);
  }

  // --- toolbox -------------------------------------------------------------------------------

  async #toolbox(sandbox: FakeSandbox, request: IncomingMessage, response: ServerResponse, route: string): Promise<void> {
    const method = request.method;
    if (route === "/process/execute" && method === "POST") return this.#execute(sandbox, response, (await readJson(request)) as ExecuteBody);
    if (route === "/process/session" && method === "POST") {
      const { sessionId } = (await readJson(request)) as { sessionId: string };
      if (sandbox.sessions.has(sessionId)) return send(response, 409, { statusCode: 409, message: "session already exists" });
      const env = { PATH: this.#path, HOME: sandbox.home, TMPDIR: sandbox.tmp, LANG: "C.UTF-8", FAKE_DAYTONA_SANDBOX: sandbox.id };
      sandbox.sessions.set(sessionId, new SessionShell(sessionId, path.join(sandbox.dir, "sessions", sessionId), sandbox.home, env, this.#shell));
      return send(response, 201, {});
    }
    if (route === "/process/session" && method === "GET") {
      return send(
        response,
        200,
        [...sandbox.sessions.values()].map((session) => sessionDto(session)),
      );
    }
    const sessionMatch = /^\/process\/session\/([^/]+)(?:\/(exec)|\/command\/([^/]+)(\/logs|\/input)?)?$/.exec(route);
    const session = sessionMatch ? sandbox.sessions.get(decodeURIComponent(sessionMatch[1]!)) : undefined;
    if (sessionMatch && !session) return send(response, 404, { statusCode: 404, message: "session not found" });
    if (sessionMatch && session) {
      const [, , exec, commandId, action] = sessionMatch;
      if (!exec && !commandId) {
        if (method === "DELETE") {
          session.kill();
          sandbox.sessions.delete(session.id);
          return send(response, 204);
        }
        return send(response, 200, sessionDto(session));
      }
      if (exec) return this.#sessionExec(sandbox, session, request, response);
      const command = session.commands.get(commandId!);
      if (!command) return send(response, 404, { statusCode: 404, message: "command not found" });
      await refreshExit(command);
      if (!action)
        return send(response, 200, {
          id: command.id,
          command: command.command,
          ...(command.exitCode === undefined ? {} : { exitCode: command.exitCode }),
        });
      if (action === "/input") return this.#input(command, request, response);
      const log = await readFile(command.log);
      const { stdout, stderr } = demultiplex(log);
      return send(response, 200, { output: strip(log).toString("utf8"), stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8") });
    }
    if (route === "/files/info" && method === "GET")
      return this.#fileInfo(response, new URL(request.url ?? "/", "http://fake").searchParams.get("path") ?? "");
    if (route === "/files/bulk-upload" && method === "POST") return this.#upload(request, response);
    if (route === "/files/bulk-download" && method === "POST")
      return this.#download(sandbox, response, (await readJson(request)) as { paths: string[] });
    send(response, 404, { statusCode: 404, message: `no toolbox route ${method} ${route}` });
  }

  #execute(sandbox: FakeSandbox, response: ServerResponse, body: ExecuteBody): void {
    const argv = parseCommand(body.command ?? "");
    if (argv.length === 0) return send(response, 400, { statusCode: 400, message: "empty command" });
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: body.cwd ?? sandbox.home,
      env: { PATH: process.env.PATH, HOME: sandbox.home, TMPDIR: sandbox.tmp, FAKE_DAYTONA_SANDBOX: sandbox.id },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    let timedOut = false;
    const timer =
      body.timeout && body.timeout > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-child.pid!, "SIGKILL");
            } catch {
              // Gone already.
            }
          }, body.timeout * 1000)
        : undefined;
    child.on("error", (error) => send(response, 200, { exitCode: -1, result: error.message }));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return send(response, 408, { statusCode: 408, message: `Command execution timed out after ${body.timeout} seconds` });
      send(response, 200, { exitCode: code ?? (signal ? -1 : 0), result: Buffer.concat(output).toString("utf8") });
    });
  }

  async #sessionExec(sandbox: FakeSandbox, session: SessionShell, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = (await readJson(request)) as { command?: string; runAsync?: boolean; async?: boolean; suppressInputEcho?: boolean };
    if (!body.command?.trim()) return send(response, 400, { statusCode: 400, message: "command cannot be empty" });
    const async = body.runAsync === true || body.async === true;
    const command = session.run(body.command, async, body.suppressInputEcho === true);
    if (async) return send(response, 202, { cmdId: command.id });
    if (this.dropNextSyncCommand) {
      this.dropNextSyncCommand = false;
      return void setTimeout(() => request.socket.destroy(), 200);
    }
    // The daemon polls the exit file every 50 ms, then answers with the log.
    while (!(await refreshExit(command))) {
      if (sandbox.state === "destroyed") return void this.#hanging.add(response);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const log = await readFile(command.log);
    const { stdout, stderr } = demultiplex(log);
    send(response, 200, {
      cmdId: command.id,
      exitCode: command.exitCode,
      output: log.toString("utf8"),
      stdout: stdout.toString("utf8"),
      stderr: stderr.toString("utf8"),
    });
  }

  async #input(command: SessionCommand, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let { data } = (await readJson(request)) as { data: string };
    if (command.exitCode !== undefined)
      return send(response, 410, { statusCode: 410, message: `command has already completed with exit code ${command.exitCode}` });
    if (!data.endsWith("\n")) data += "\n";
    const pipe = await open(command.input, "w");
    try {
      await pipe.write(data);
    } finally {
      await pipe.close();
    }
    if (!command.suppressInputEcho) await writeFile(command.log, `\x01\x01\x01${data}`, { flag: "a" });
    if (this.dropInputWhen?.(data)) {
      this.dropInputWhen = undefined;
      return void request.socket.destroy();
    }
    send(response, 204);
  }

  async #upload(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const destinations = new Map<string, string>();
    const writes: Promise<void>[] = [];
    const errors: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: request.headers, preservePath: true, limits: { fileSize: Infinity } });
      parser.on("field", (name, value) => destinations.set(index(name), value.trim()));
      parser.on("file", (name, stream) => {
        const destination = destinations.get(index(name));
        if (!destination) {
          errors.push(`file[${index(name)}]: missing .path metadata`);
          stream.resume();
          return;
        }
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        writes.push(
          new Promise<void>((done) =>
            stream.on("end", () => {
              writeAtomically(destination, Buffer.concat(chunks)).then(done, (error: Error) => {
                errors.push(`${destination}: ${error.message}`);
                done();
              });
            }),
          ),
        );
      });
      parser.on("close", resolve);
      parser.on("error", reject);
      request.pipe(parser);
    });
    await Promise.all(writes);
    if (errors.length > 0) return send(response, 400, { errors });
    send(response, 200, { files: [...destinations.values()].map((file) => ({ path: file })) });
  }

  /** The daemon's `GET /files/info`: `os.Stat` (links followed), 404 when nothing is there, the mode as Go prints it. */
  async #fileInfo(response: ServerResponse, file: string): Promise<void> {
    if (!file) return send(response, 400, { statusCode: 400, message: "path is required" });
    const found = await stat(file).catch((error: NodeJS.ErrnoException) => error);
    if (found instanceof Error) {
      const status = found.code === "ENOENT" || found.code === "ENOTDIR" ? 404 : found.code === "EACCES" ? 403 : 400;
      return send(response, status, { statusCode: status, message: found.message });
    }
    await this.onFileInfo?.(file);
    send(response, 200, {
      name: path.basename(file),
      size: found.size,
      mode: goFileMode(found),
      modTime: found.mtime.toISOString(),
      isDir: found.isDirectory(),
      owner: String(found.uid),
      group: String(found.gid),
      permissions: (found.mode & 0o7777).toString(8).padStart(4, "0"),
    });
  }

  async #download(sandbox: FakeSandbox, response: ServerResponse, body: { paths: string[] }): Promise<void> {
    const boundary = "DAYTONA-FILE-BOUNDARY";
    // Like the daemon's, the answer's head leaves with its first part: nothing is sent while an open waits.
    response.setHeader("content-type", `multipart/form-data; boundary=${boundary}`);
    for (const file of body.paths) {
      const found = await stat(file).catch(() => undefined);
      if (!found || found.isDirectory()) {
        response.write(part(boundary, "error", file, "text/plain; charset=utf-8"));
        response.write(`file not found or invalid: ${file}\r\n`);
        continue;
      }
      const source = await openForDownload(sandbox, file, found.isFIFO());
      if (response.destroyed) return void source.destroy();
      // Streamed as the daemon does (io.Copy): a device that never ends streams until the client hangs up.
      response.write(part(boundary, "file", file, "application/octet-stream"));
      for await (const chunk of source) {
        if (response.destroyed) return void source.destroy();
        if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
      }
      response.write("\r\n");
    }
    response.end(`--${boundary}--\r\n`);
  }

  // --- log WebSocket -------------------------------------------------------------------------

  #upgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const url = new URL(request.url ?? "/", "http://fake");
    const match = /^\/toolbox\/([^/]+)\/process\/session\/([^/]+)\/command\/([^/]+)\/logs$/.exec(url.pathname);
    this.requests.push({ method: "WS", path: url.pathname, authorization: request.headers.authorization });
    const sandbox = match ? this.sandboxes.get(match[1]!) : undefined;
    const command = sandbox?.sessions.get(decodeURIComponent(match![2]!))?.commands.get(match![3]!);
    if (request.headers.authorization !== `Bearer ${this.apiKey}` || !command) {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => void this.#followLog(sandbox!, command, ws));
  }

  /** Sends the log as it grows (1 KiB a message, 20 ms polls); closes after 1 s of quiet once the exit code is there. */
  async #followLog(sandbox: FakeSandbox, command: SessionCommand, ws: WebSocket): Promise<void> {
    const dropAfter = this.dropNextLogStreamAfter;
    this.dropNextLogStreamAfter = undefined;
    const framing = this.logFraming?.();
    const file = await open(command.log, "r");
    const buffer = Buffer.alloc(this.logReadBytes);
    let position = 0;
    let quietSince = performance.now();
    let sent = 0;
    try {
      while (ws.readyState === ws.OPEN) {
        if (sandbox.state === "destroyed") {
          this.#hanging.add(ws);
          return;
        }
        const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          const stretch = Buffer.from(buffer.subarray(0, bytesRead));
          let start = 0;
          for (const cut of [...(framing?.(stretch, position) ?? []), bytesRead]) {
            if (cut <= start || cut > bytesRead) continue;
            ws.send(stretch.subarray(start, cut));
            start = cut;
            sent += 1;
            if (dropAfter !== undefined && sent >= dropAfter) {
              ws.terminate();
              return;
            }
          }
          position += bytesRead;
          quietSince = performance.now();
          continue;
        }
        if (performance.now() - quietSince >= 1000 && (await refreshExit(command))) {
          ws.close(1000);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, this.logPollMs));
      }
    } finally {
      await file.close();
    }
  }
}

interface ExecuteBody {
  command?: string;
  cwd?: string;
  timeout?: number;
}

function sessionDto(session: SessionShell): Record<string, unknown> {
  return {
    sessionId: session.id,
    commands: [...session.commands.values()].map((command) => ({
      id: command.id,
      command: command.command,
      ...(command.exitCode === undefined ? {} : { exitCode: command.exitCode }),
    })),
  };
}

/** Reads the command's exit file; true once it holds the code. */
async function refreshExit(command: SessionCommand): Promise<boolean> {
  if (command.exitCode !== undefined) return true;
  const text = await readFile(command.exitFile, "utf8").catch(() => "");
  if (!text.trim()) return false;
  command.exitCode = Number(text.trim());
  return true;
}

const STDOUT_MARK = Buffer.from([1, 1, 1]);
const STDERR_MARK = Buffer.from([2, 2, 2]);

/** The daemon's server-side split of a labelled log. */
function demultiplex(log: Buffer): { stdout: Buffer; stderr: Buffer } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let position = 0;
  let target: Buffer[] | undefined;
  while (position < log.length) {
    const nextOut = log.indexOf(STDOUT_MARK, position);
    const nextErr = log.indexOf(STDERR_MARK, position);
    const next = nextOut === -1 ? nextErr : nextErr === -1 ? nextOut : Math.min(nextOut, nextErr);
    const end = next === -1 ? log.length : next;
    target?.push(log.subarray(position, end));
    if (next === -1) break;
    target = next === nextOut ? out : err;
    position = next + 3;
  }
  return { stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}

function strip(log: Buffer): Buffer {
  const { stdout, stderr } = demultiplex(log);
  return Buffer.concat([stdout, stderr]);
}

/**
 * The file opened as the daemon's `os.Open` opens it. A FIFO's open waits for a writer, for ever
 * if none comes, and a Go handler blocked there is never woken by its client leaving: a `cat` of
 * the sandbox (so its deletion ends it) does that open here, so the fake's own thread pool is never
 * held. Resolves once the file is open (its first bytes or its end), as the daemon writes a part's
 * head only then.
 */
async function openForDownload(sandbox: FakeSandbox, file: string, fifo: boolean): Promise<Readable> {
  if (!fifo) return createReadStream(file);
  const reader = spawn("cat", ["--", file], {
    env: { PATH: process.env.PATH, FAKE_DAYTONA_SANDBOX: sandbox.id },
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise((resolve) => reader.stdout.once("readable", resolve).once("close", resolve));
  return reader.stdout;
}

/** A mode as Go's `FileMode.String()` prints it: type letters (`-` for none), then rwx bits. */
function goFileMode(found: Stats): string {
  const type = found.isDirectory()
    ? "d"
    : found.isFIFO()
      ? "p"
      : found.isSocket()
        ? "S"
        : found.isCharacterDevice()
          ? "Dc"
          : found.isBlockDevice()
            ? "D"
            : "";
  const special = `${found.mode & 0o4000 ? "u" : ""}${found.mode & 0o2000 ? "g" : ""}${found.mode & 0o1000 ? "t" : ""}`;
  const bits = [...("rwxrwxrwx" as string)].map((letter, index) => (found.mode & (0o400 >> index) ? letter : "-")).join("");
  return `${type}${special}` === "" ? `-${bits}` : `${type}${special}${bits}`;
}

function part(boundary: string, name: string, filename: string, contentType: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`;
}

function index(field: string): string {
  return field.replace(/^files\[/, "").replace(/\]\.(path|file)$/, "");
}

async function writeAtomically(destination: string, data: Buffer): Promise<void> {
  mkdirSync(path.dirname(destination), { recursive: true });
  const temporary = path.join(path.dirname(destination), `.daytona-upload-${randomUUID()}`);
  await writeFile(temporary, data, { mode: 0o644 });
  await rename(temporary, destination);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

function send(response: ServerResponse, status: number, body?: unknown): void {
  if (response.headersSent) return;
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

/** A directory of links to every program on PATH but python's (the first of each name, as PATH finds it). */
function pathWithoutPython(dir: string): string {
  mkdirSync(dir);
  const linked = new Set<string>();
  for (const entry of (process.env.PATH ?? "").split(":")) {
    let names: string[] = [];
    try {
      names = readdirSync(entry);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith("python") || linked.has(name)) continue;
      linked.add(name);
      symlinkSync(path.join(entry, name), path.join(dir, name));
    }
  }
  return dir;
}

/** Kills every process of a sandbox: those carrying its tag, and every descendant of those. */
function killTree(sandboxId: string): void {
  const parents = new Map<number, number>();
  const tagged = new Set<number>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (readFileSync(`/proc/${pid}/environ`, "utf8").includes(`FAKE_DAYTONA_SANDBOX=${sandboxId}`)) tagged.add(pid);
    } catch {
      // Ended meanwhile.
    }
  }
  const doomed = new Set(tagged);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!doomed.has(pid) && doomed.has(parent)) {
        doomed.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of doomed) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}
