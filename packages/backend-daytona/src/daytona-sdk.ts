/**
 * The part of the Daytona TypeScript SDK this backend uses, as structural types, and the lazy
 * import that finds it. The SDK is published twice with the same API — `@daytonaio/sdk` (the name
 * in codecall's design) and `@daytona/sdk` (its new name) — and either may be installed: both are
 * optional peer dependencies, imported on first use (it is a heavy import), and a test checks that
 * the real classes of both satisfy these types. Declaring them here also keeps the published
 * `.d.ts` free of a dependency on one of the two names.
 */
import type { Readable } from "node:stream";
import { CodecallError, errorMessage } from "@codecall/core";

/** The package names, in the order they are tried. */
export const SDK_PACKAGES = ["@daytonaio/sdk", "@daytona/sdk"] as const;

/** `new Daytona(config)`: only the fields given are set, so the SDK's own sources fill the rest. */
export interface DaytonaClientConfig {
  apiKey?: string;
  apiUrl?: string;
  target?: string;
}

/** What `daytona.create()` is given (the subset this backend sets). */
export interface SandboxCreateParams {
  image?: string;
  snapshot?: string;
  name?: string;
  labels?: Record<string, string>;
  envVars?: Record<string, string>;
  resources?: { cpu?: number; memory?: number; disk?: number };
  autoStopInterval?: number;
  ephemeral?: boolean;
  networkBlockAll?: boolean;
  networkAllowList?: string;
}

export interface DaytonaClient {
  create(params: SandboxCreateParams, options: { timeout: number }): Promise<DaytonaSandbox>;
  get(idOrName: string): Promise<DaytonaSandbox>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface DaytonaSandbox {
  readonly id: string;
  state?: string;
  errorReason?: string;
  readonly process: SandboxProcess;
  readonly fs: SandboxFiles;
  start(timeout?: number): Promise<void>;
  delete(timeout?: number): Promise<void>;
  refreshData(): Promise<void>;
}

export interface SessionExecuteRequest {
  command: string;
  runAsync?: boolean;
  suppressInputEcho?: boolean;
}

export interface SessionExecuteResult {
  cmdId: string;
  exitCode?: number;
  output?: string;
  stdout?: string;
  stderr?: string;
}

export interface SessionLogs {
  output?: string;
  stdout?: string;
  stderr?: string;
}

export interface SandboxProcess {
  createSession(sessionId: string): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  executeSessionCommand(sessionId: string, request: SessionExecuteRequest, timeout?: number): Promise<SessionExecuteResult>;
  getSessionCommand(sessionId: string, commandId: string): Promise<{ exitCode?: number }>;
  getSessionCommandLogs(sessionId: string, commandId: string): Promise<SessionLogs>;
  getSessionCommandLogs(sessionId: string, commandId: string, onStdout: (chunk: string) => void, onStderr: (chunk: string) => void): Promise<void>;
  sendSessionCommandInput(sessionId: string, commandId: string, data: string): Promise<void>;
}

/** What the toolbox says of a path (`os.Stat` in the daemon: links followed). */
export interface SandboxFileInfo {
  isDir: boolean;
  /** Go's `FileMode.String()`: type letters, then the nine permission bits, e.g. `prw-r--r--` for a FIFO. */
  mode: string;
}

export interface SandboxFiles {
  /** Aborting `signal` ends the upload; `onProgress` tells how much of `source` was sent. */
  uploadFileStream(source: Buffer, remotePath: string, options?: { signal?: AbortSignal; onProgress?: () => void }): Promise<void>;
  /** Both SDK names take `{ signal }` (aborting ends the download); older typings declare only a timeout. */
  downloadFileStream(remotePath: string, options?: number | { signal?: AbortSignal }): Promise<Readable>;
  /** Rejects with status 404 when nothing is at the path. */
  getFileDetails(path: string): Promise<SandboxFileInfo>;
}

/** What this backend needs of the SDK module. */
export interface DaytonaSdk {
  Daytona: new (config?: DaytonaClientConfig) => DaytonaClient;
}

/** Imports a module by name (a parameter so tests can refuse one). */
export type SdkImporter = (specifier: string) => Promise<unknown>;

const defaultImporter: SdkImporter = (specifier) => import(/* @vite-ignore */ specifier);

/**
 * The first of {@link SDK_PACKAGES} that is installed. A package that is there but fails to load
 * is reported as such, not skipped: installing the other one would not help.
 */
export async function loadDaytonaSdk(importModule: SdkImporter = defaultImporter): Promise<{ sdk: DaytonaSdk; name: string }> {
  for (const name of SDK_PACKAGES) {
    let module: unknown;
    try {
      module = await importModule(name);
    } catch (error) {
      if (isMissing(error, name)) continue;
      throw new CodecallError("ENVIRONMENT_FAILED", `daytona: could not load ${name}: ${errorMessage(error)}`, { cause: error });
    }
    if (typeof (module as Partial<DaytonaSdk>).Daytona !== "function") {
      throw new CodecallError("ENVIRONMENT_FAILED", `daytona: ${name} does not export the Daytona class; is it the Daytona SDK?`);
    }
    return { sdk: module as DaytonaSdk, name };
  }
  throw new CodecallError(
    "PACKAGE_NOT_INSTALLED",
    `The daytona backend needs the Daytona SDK, which is not installed. Install either name of it: npm install ${SDK_PACKAGES[0]} (or npm install ${SDK_PACKAGES[1]}, the same API under its new name)`,
    { details: { package: SDK_PACKAGES[0] } },
  );
}

function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && errorMessage(error).includes(name);
}
