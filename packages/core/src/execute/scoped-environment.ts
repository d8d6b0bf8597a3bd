/**
 * The environment as tools see it during a run: every command gets the run's scrubbed env (so
 * `terminal("env")` shows no host secret) and the run's working directory, and relative file
 * paths resolve against that directory. Closing it does not close the real environment.
 */
import { ENVIRONMENT_SPECIFICATION_VERSION } from "../specification.js";
import type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentProcess,
  ExecOptions,
  ExecResult,
  ReadFileOptions,
  SpawnOptions,
  WriteFileOptions,
} from "../environment.js";

export interface RunScope {
  /** The complete env commands start with. */
  env: Readonly<Record<string, string>>;
  /** Working directory for commands and relative paths; the environment's default when unset. */
  cwd?: string;
}

export class ScopedEnvironment implements Environment {
  readonly specificationVersion = ENVIRONMENT_SPECIFICATION_VERSION;
  readonly #inner: Environment;
  readonly #scope: RunScope;

  constructor(inner: Environment, scope: RunScope) {
    this.#inner = inner;
    this.#scope = scope;
  }

  get backendId(): string {
    return this.#inner.backendId;
  }

  get capabilities(): EnvironmentCapabilities {
    return this.#inner.capabilities;
  }

  execute(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.#inner.execute(command, this.#scoped(options));
  }

  executeOneshot(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.#inner.executeOneshot(command, this.#scoped(options));
  }

  spawn(command: string, options: SpawnOptions = {}): Promise<EnvironmentProcess> {
    return this.#inner.spawn(command, this.#scoped(options));
  }

  writeFile(path: string, data: Uint8Array | string, options?: WriteFileOptions): Promise<void> {
    return this.#inner.writeFile(this.resolvePath(path), data, options);
  }

  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array> {
    return this.#inner.readFile(this.resolvePath(path), options);
  }

  tempDir(): Promise<string> {
    return this.#inner.tempDir();
  }

  remove(path: string): Promise<void> {
    return this.#inner.remove(this.resolvePath(path));
  }

  async defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return this.#scope.env;
  }

  /** The run owns the real environment's lifetime, not the tools. */
  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {}

  /** `path` made absolute against the run's working directory (when one is set). */
  resolvePath(path: string): string {
    const cwd = this.#scope.cwd;
    if (path.startsWith("/") || cwd === undefined) return path;
    return `${cwd.replace(/\/+$/, "")}/${path}`;
  }

  #scoped<T extends SpawnOptions>(options: T): T {
    return {
      ...options,
      cwd: options.cwd === undefined ? this.#scope.cwd : this.resolvePath(options.cwd),
      env: { ...this.#scope.env, ...options.env },
      clearEnv: true,
    };
  }
}
