/**
 * What an `ExecEnvironment` routes: the Environment's operations on absolute paths and with the
 * environment's defaults already applied, done either by plain backend execs
 * ({@link ExecOperations}) or through the environment agent (`AgentOperations`).
 */
import type { EnvironmentProcess, ExecOptions, ExecResult, ReadFileOptions, SpawnOptions, WriteFileOptions } from "../environment.js";

export interface RemoteOperations {
  execute(command: string, options: ExecOptions): Promise<ExecResult>;
  spawn(command: string, options: SpawnOptions): Promise<EnvironmentProcess>;
  writeFile(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void>;
  readFile(path: string, options: ReadFileOptions): Promise<Uint8Array>;
  /** A new 0700 directory under `root` (default: `$TMPDIR`, else `/tmp`). */
  tempDir(root: string | undefined): Promise<string>;
  remove(path: string): Promise<void>;
  /** The environment's own variables (without the `env` option). */
  defaultEnv(): Promise<Readonly<Record<string, string>>>;
}
