import type { Environment, EnvironmentProcess, ExecOptions, ExecResult, ReadFileOptions, SpawnOptions, WriteFileOptions } from "@codecall/core";
import { ENVIRONMENT_SPECIFICATION_VERSION } from "@codecall/core";

/** Decides what one `executeOneshot` does; `run` performs the real one. */
export type OneshotInterceptor = (command: string, options: ExecOptions | undefined, run: () => Promise<ExecResult>) => Promise<ExecResult>;

/** An environment that delegates everything and counts (and may alter) every `executeOneshot`. */
export class OneshotSpy implements Environment {
  readonly specificationVersion = ENVIRONMENT_SPECIFICATION_VERSION;
  calls = 0;
  readonly #inner: Environment;
  #intercept: OneshotInterceptor;

  constructor(inner: Environment, intercept: OneshotInterceptor = (_command, _options, run) => run()) {
    this.#inner = inner;
    this.#intercept = intercept;
  }

  get backendId(): string {
    return this.#inner.backendId;
  }

  get capabilities() {
    return this.#inner.capabilities;
  }

  /** Replaces the interceptor from now on. */
  intercept(next: OneshotInterceptor): void {
    this.#intercept = next;
  }

  executeOneshot(command: string, options?: ExecOptions): Promise<ExecResult> {
    this.calls += 1;
    return this.#intercept(command, options, () => this.#inner.executeOneshot(command, options));
  }

  execute(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.#inner.execute(command, options);
  }

  spawn(command: string, options?: SpawnOptions): Promise<EnvironmentProcess> {
    return this.#inner.spawn(command, options);
  }

  writeFile(path: string, data: Uint8Array | string, options?: WriteFileOptions): Promise<void> {
    return this.#inner.writeFile(path, data, options);
  }

  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array> {
    return this.#inner.readFile(path, options);
  }

  tempDir(): Promise<string> {
    return this.#inner.tempDir();
  }

  remove(path: string): Promise<void> {
    return this.#inner.remove(path);
  }

  defaultEnv(): Promise<Readonly<Record<string, string>>> {
    return this.#inner.defaultEnv();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#inner.close();
  }
}
