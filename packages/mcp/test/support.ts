/** Starting the fixture MCP servers, and a local environment to run scripts in. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { McpStdioServerSpec } from "../src/index.js";

export const ISSUES_SERVER = fileURLToPath(new URL("./fixtures/issues-server.mjs", import.meta.url));
export const ODD_SERVER = fileURLToPath(new URL("./fixtures/odd-server.mjs", import.meta.url));

/** The spec that starts a fixture server over stdio. */
export function stdioSpec(file: string): McpStdioServerSpec {
  return { command: process.execPath, args: [file] };
}

/** A fixture server listening on HTTP, with its URL. */
export interface HttpFixture {
  url: string;
  child: ChildProcess;
  stop(): void;
}

/** Starts `file --http` and waits for the URL it prints. */
export async function startHttpFixture(file: string): Promise<HttpFixture> {
  const child = spawn(process.execPath, [file, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before printing its URL`)));
  });
  return { url, child, stop: () => child.kill("SIGKILL") };
}

/** True while a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Polls `condition` every 50 ms until it holds, failing after `timeoutMs` (a safety net, not a measurement). */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
