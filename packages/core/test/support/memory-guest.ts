/**
 * A guest written in JavaScript, standing in for the Python script in core's tests: it sees what a
 * script would (the file written to the run dir, its env, stdout and stderr) and imports the stub
 * module as Python would — found on PYTHONPATH, the client module beside it (`_codecall_client`)
 * connecting by the variable it names — then speaks JSON-RPC to the transport over the in-memory wire.
 */
import { FrameDecoder } from "../../src/protocol/frame-decoder.js";
import type { MemoryEndpoint, MemoryNetwork } from "./memory-wire.js";

/** The script's body: what it returns is its exit code (default 0); what it throws ends it with 1. */
export type Guest = (script: GuestContext) => Promise<number | void> | number | void;

/** What a script has while it runs. */
export interface GuestContext {
  /** The script's source as written to the run dir. */
  readonly source: string;
  /** The process's env, its own to change (as `os.environ` is). */
  readonly env: Record<string, string>;
  readonly cwd: string | undefined;
  /** Python's `print`: the values joined by spaces, then a newline, on stdout. */
  print(...values: unknown[]): void;
  /** Text on stderr, as it is. */
  printError(text: string): void;
  /** `import <name>` (default `codecall`): rejects as Python's import would fail. */
  importModule(name?: string): Promise<GuestModule>;
  /** Aborted when the process is killed. */
  readonly killed: AbortSignal;
  /** The environment fails under the script (a container that dies): the process is lost. */
  loseEnvironment(why: string): never;
}

/** An imported stub module. */
export interface GuestModule {
  readonly source: string;
  /** The client module it imports (`_codecall_client.py`, beside it). */
  readonly clientSource: string;
  /** A tool call: its result, or a {@link GuestToolError}. */
  call(name: string, args?: Record<string, unknown>): Promise<unknown>;
}

/** The `ToolError` a stub raises: the host's error answer. */
export class GuestToolError extends Error {
  override readonly name = "ToolError";
  readonly code: number;

  constructor(message: string, code: number) {
    super(message);
    this.code = code;
  }
}

/** Where the module is looked for and what its client reaches. */
export interface ImportScope {
  files: ReadonlyMap<string, string>;
  env: Readonly<Record<string, string>>;
  network: MemoryNetwork;
  /** The process's connections, closed when it exits. */
  connections: Set<MemoryEndpoint>;
}

/** Finds the module on PYTHONPATH, connects with the client module beside it and says hello. */
export async function importModule(scope: ImportScope, name: string): Promise<GuestModule> {
  const dir = (scope.env.PYTHONPATH ?? "").split(":").find((entry) => scope.files.has(`${entry}/${name}.py`));
  if (dir === undefined) throw new Error(`ModuleNotFoundError: No module named '${name}'`);
  const source = scope.files.get(`${dir}/${name}.py`)!;
  const clientSource = scope.files.get(`${dir}/_codecall_client.py`);
  if (clientSource === undefined) throw new Error("ModuleNotFoundError: No module named '_codecall_client'");
  const variable = /# in-memory client: connects to \$(\w+)/.exec(clientSource)?.[1];
  if (variable === undefined) throw new Error("ImportError: _codecall_client is not the in-memory client");
  const address = scope.env[variable];
  if (address === undefined) throw new Error(`KeyError: '${variable}'`);
  const endpoint = scope.network.connect(address);
  scope.connections.add(endpoint);
  const client = new GuestRpcClient(endpoint, Number(scope.env.CODECALL_RPC_MAX_FRAME));
  await client.request("hello", { token: scope.env.CODECALL_RPC_TOKEN, protocol: 1 });
  return {
    source,
    clientSource,
    call: (tool, args) => client.request("tools/call", args === undefined ? { name: tool } : { name: tool, arguments: args }),
  };
}

/** Requests by id over one connection; answers may come in any order. */
class GuestRpcClient {
  readonly #endpoint: MemoryEndpoint;
  readonly #decoder: FrameDecoder;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 0;

  constructor(endpoint: MemoryEndpoint, maxFrameBytes: number) {
    this.#endpoint = endpoint;
    this.#decoder = new FrameDecoder(maxFrameBytes);
    endpoint.onData = (chunk) => {
      for (const decoded of this.#decoder.push(chunk)) {
        if (decoded.kind === "frame") this.#settle(JSON.parse(decoded.line) as Answer);
      }
    };
    endpoint.onClose = () => {
      for (const pending of this.#pending.values()) pending.reject(new Error("ConnectionResetError: the host closed the connection"));
      this.#pending.clear();
    };
  }

  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#endpoint.closed) return reject(new Error("BrokenPipeError: the connection is closed"));
      this.#pending.set(id, { resolve, reject });
      this.#endpoint.send(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`));
    });
  }

  #settle(answer: Answer): void {
    const pending = this.#pending.get(answer.id);
    if (!pending) return;
    this.#pending.delete(answer.id);
    if (answer.error) pending.reject(new GuestToolError(answer.error.message, answer.error.code));
    else pending.resolve(answer.result);
  }
}

interface Answer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}
