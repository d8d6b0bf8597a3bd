/**
 * Options of the singularity backend (Apptainer, or SingularityCE/the old Singularity: they take
 * the same commands and flags), checked before any instance starts.
 */
import { CodecallError, OptionReader } from "@codecall/core";

export interface SingularityEnvironmentOptions {
  /** What to start an instance from: a `.sif` file, a sandbox directory, or `docker://…`/`library://…`. */
  image?: string;
  /** A running instance to use instead (it is left running on close). */
  instance?: string;
  /** Name of the instance to start (default `codecall-` and random hex). */
  name?: string;
  /** The CLI: a command on PATH or a path (default: `apptainer`, else `singularity`). */
  binary?: string;
  /** Bind mounts, `src[:dest[:ro|rw]]` each (`-B`). */
  binds?: string[];
  /**
   * `--containall` (default true): no host `$HOME`, `/tmp` or `/dev` in the instance and its own
   * PID and IPC namespaces. Without it Apptainer shares the host's home and /tmp with the script.
   */
  containAll?: boolean;
  /** `--writable-tmpfs` (default true): a scratch overlay, so an image's own directories are writable. */
  writableTmpfs?: boolean;
  /** `--fakeroot` (default false). */
  fakeroot?: boolean;
  /** More flags for `instance start`, as given (e.g. `["--nv"]`). */
  startArgs?: string[];
  /** Default working directory of commands inside the instance. */
  workdir?: string;
  /** Variables set for every command (on top of the instance's clean environment). */
  env?: Record<string, string>;
  /** How long `instance start` may take, image pulls included (default 300 s). */
  startTimeoutMs?: number;
  /** Where `tempDir()` creates directories inside the instance (default `$TMPDIR` or `/tmp`). */
  tempRoot?: string;
}

/** Options checked, with defaults applied. */
export interface ParsedSingularityOptions {
  image?: string;
  instance?: string;
  name?: string;
  binary?: string;
  binds: string[];
  containAll: boolean;
  writableTmpfs: boolean;
  fakeroot: boolean;
  startArgs: string[];
  workdir?: string;
  env: Record<string, string>;
  startTimeoutMs: number;
  tempRoot?: string;
}

const KNOWN: readonly (keyof SingularityEnvironmentOptions)[] = [
  "image",
  "instance",
  "name",
  "binary",
  "binds",
  "containAll",
  "writableTmpfs",
  "fakeroot",
  "startArgs",
  "workdir",
  "env",
  "startTimeoutMs",
  "tempRoot",
];
/** What Apptainer accepts as an instance name. */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function parseSingularityOptions(raw: unknown): ParsedSingularityOptions {
  const read = new OptionReader("singularity", raw, KNOWN);
  const parsed: ParsedSingularityOptions = {
    binds: read.stringList("binds") ?? [],
    containAll: read.boolean("containAll") ?? true,
    writableTmpfs: read.boolean("writableTmpfs") ?? true,
    fakeroot: read.boolean("fakeroot") ?? false,
    startArgs: read.stringList("startArgs") ?? [],
    env: read.env("env") ?? {},
    startTimeoutMs: read.integer("startTimeoutMs", 1) ?? 300_000,
  };
  for (const key of ["image", "instance", "name", "binary", "workdir", "tempRoot"] as const) {
    const value = read.string(key);
    if (value !== undefined) parsed[key] = value;
  }
  for (const key of ["instance", "name"] as const) {
    const value = parsed[key];
    if (value !== undefined && !INSTANCE_NAME.test(value)) read.fail(key, `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(value)}`);
  }
  for (const bind of parsed.binds) {
    if (!/^[^:,]+(:\/[^:,]*(:(ro|rw))?)?$/.test(bind)) read.fail("binds", `wants "src[:/dest[:ro|rw]]", got ${JSON.stringify(bind)}`);
  }
  if (parsed.workdir !== undefined && !parsed.workdir.startsWith("/")) read.fail("workdir", "must be an absolute path inside the instance");
  if ((parsed.image === undefined) === (parsed.instance === undefined)) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      'The singularity backend needs either an image to start an instance from (image: "python.sif" or "docker://python:3.12-slim", or -o image=...) or a running instance (instance: "name"), not both',
    );
  }
  if (parsed.instance !== undefined && parsed.name !== undefined) read.fail("name", "names a new instance; it cannot be given with instance");
  return parsed;
}
