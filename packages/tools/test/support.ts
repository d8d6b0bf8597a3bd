/**
 * Test support: a real local environment rooted in a fresh temp directory, and a tool context for
 * it. Nothing of ours is mocked.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import type { Environment, ToolContext } from "@codecall/core";
import { afterEach, beforeEach } from "vitest";

export interface Workspace {
  /** The temp directory; also the environment's working directory. */
  dir: string;
  environment: LocalEnvironment;
  controller: AbortController;
  context: ToolContext;
  /** Absolute path of `relative` inside the workspace. */
  at(relative: string): string;
  /** A file's contents, read directly from disk. */
  text(relative: string): Promise<string>;
}

/** A context for calling a tool's `execute` directly. */
export function contextFor(environment: Environment, signal = new AbortController().signal): ToolContext {
  return { environment, signal, runId: "test-run", callId: "1" };
}

/** A fresh workspace per test, removed afterwards. */
export function useWorkspace(): Workspace {
  const workspace = {} as Workspace;
  beforeEach(async () => {
    workspace.dir = await mkdtemp(path.join(tmpdir(), "codecall-tools-"));
    workspace.environment = createEnvironment({ cwd: workspace.dir });
    workspace.controller = new AbortController();
    workspace.context = contextFor(workspace.environment, workspace.controller.signal);
    workspace.at = (relative) => path.join(workspace.dir, relative);
    workspace.text = (relative) => readFile(workspace.at(relative), "utf8");
  });
  afterEach(async () => {
    await workspace.environment.close();
    await rm(workspace.dir, { recursive: true, force: true });
  });
  return workspace;
}

/** True while process `pid` exists and is not a zombie (Linux /proc). */
export async function processAlive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => undefined);
  return status !== undefined && !/^State:\s*Z/m.test(status);
}

/** Waits up to `ms` for `pid` to be gone; returns whether it is. */
export async function processGone(pid: number, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await processAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !(await processAlive(pid));
}
