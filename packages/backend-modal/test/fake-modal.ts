/**
 * Starts the fake Modal server (test/fake-modal/server.mjs) as a child process of the test and
 * points the real SDK at it: MODAL_SERVER_URL and the token pair it accepts go into this process's
 * env (the SDK reads them at `new ModalClient()`). The fake's calls can be read back and faults armed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";

const SERVER = fileURLToPath(new URL("./fake-modal/server.mjs", import.meta.url));

/** The credential pair the fake accepts. */
export const FAKE_TOKEN_ID = "ak-fake-codecall-token-id";
export const FAKE_TOKEN_SECRET = "as-fake-codecall-SECRET-9f3b2c71d4e8";

/** Registry tags the fake's "registry" has. */
export const FAKE_IMAGES = ["python:3.13-slim", "python:3.12-slim"];

/** gRPC status codes used in faults. */
export const GRPC = { INVALID_ARGUMENT: 3, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

export interface FakeCall {
  method: string;
  request: Record<string, unknown>;
}

export class FakeModal {
  readonly url: string;
  readonly stateDir: string;
  readonly #child: ChildProcess;
  readonly #lines: Interface;
  #nextId = 1;

  private constructor(child: ChildProcess, lines: Interface, port: number, stateDir: string) {
    this.#child = child;
    this.#lines = lines;
    this.url = `http://127.0.0.1:${port}`;
    this.stateDir = stateDir;
  }

  /** Starts a fake (its own state dir) and waits until it listens. */
  static async start(): Promise<FakeModal> {
    const stateDir = mkdtempSync(path.join(tmpdir(), "codecall-fake-modal-"));
    const child = spawn(process.execPath, [SERVER], {
      env: {
        PATH: process.env.PATH,
        FAKE_MODAL_STATE: stateDir,
        FAKE_MODAL_TOKEN_ID: FAKE_TOKEN_ID,
        FAKE_MODAL_TOKEN_SECRET: FAKE_TOKEN_SECRET,
        FAKE_MODAL_IMAGES: FAKE_IMAGES.join(","),
      },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines = createInterface({ input: child.stdout });
    const port = await new Promise<number>((resolve, reject) => {
      lines.once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
      child.once("exit", (code) => reject(new Error(`the fake Modal server exited (${code}) before listening`)));
    });
    return new FakeModal(child, lines, port, stateDir);
  }

  /** Points the SDK in this process at the fake, with the credentials it accepts. */
  use(): this {
    process.env.MODAL_SERVER_URL = this.url;
    process.env.MODAL_TOKEN_ID = FAKE_TOKEN_ID;
    process.env.MODAL_TOKEN_SECRET = FAKE_TOKEN_SECRET;
    return this;
  }

  /** Every call the fake received so far, in order. */
  calls(method?: string): FakeCall[] {
    let text = "";
    try {
      text = readFileSync(path.join(this.stateDir, "calls.jsonl"), "utf8");
    } catch {
      return [];
    }
    const calls = text
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FakeCall);
    return method === undefined ? calls : calls.filter((call) => call.method === method);
  }

  /**
   * After `after` more calls of `method` succeed, the next `times` fail with gRPC status `code` (0
   * times disarms). With `sandboxId`, only calls about that sandbox count (see `FakeState.addFault`).
   */
  async fail(
    method: string,
    code: number,
    {
      times = 1,
      after = 0,
      details = "injected by the test",
      sandboxId,
    }: { times?: number; after?: number; details?: string; sandboxId?: string } = {},
  ): Promise<void> {
    const id = this.#nextId++;
    const answered = new Promise<void>((resolve) => {
      const onLine = (line: string) => {
        if ((JSON.parse(line) as { ok?: number }).ok !== id) return;
        this.#lines.off("line", onLine);
        resolve();
      };
      this.#lines.on("line", onLine);
    });
    this.#child.stdin!.write(`${JSON.stringify({ id, op: "fail", method, code, times, after, details, sandboxId })}\n`);
    await answered;
  }

  /** Ends every sandbox's processes, stops the fake, removes its state. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null) {
      const exited = new Promise((resolve) => this.#child.once("exit", resolve));
      this.#child.stdin!.end();
      await exited;
    }
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}
