/**
 * Options of the singularity backend (Apptainer, or SingularityCE/the old Singularity: they take
 * the same commands and flags), declared once: `createEnvironment()`, config files and the CLI's
 * `-o` pairs are all parsed by this declaration, and `codecall run --backend singularity --help`
 * prints it. Checked before any instance starts.
 */
import { CodecallError } from "@codecall/core";
import { defineOptions, type OptionsInput, type OptionValues } from "@codecall/core/backend-kit";

/** What Apptainer accepts as an instance name. */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const instanceName = (value: string) =>
  INSTANCE_NAME.test(value) ? undefined : `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(value)}`;

/** The singularity backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("singularity", {
  image: { type: "string", description: "a `.sif` file, a sandbox directory, or `docker://…` / `library://…`; required unless `instance`" },
  instance: { type: "string", description: "use this running instance instead; it is left running on close", check: instanceName },
  name: { type: "string", defaultText: "`codecall-<random>`", description: "name of the instance to start", check: instanceName },
  binary: { type: "string", defaultText: "`apptainer`, else `singularity`", description: "the CLI, on PATH or as a path" },
  /** Without `--containall` Apptainer shares the host's home and /tmp with the script. */
  containAll: { type: "boolean", default: true, description: "`--containall`: no host `$HOME`, `/tmp` or `/dev`, own PID and IPC namespaces" },
  writableTmpfs: { type: "boolean", default: true, description: "`--writable-tmpfs`: the image's own directories become writable (in memory)" },
  fakeroot: { type: "boolean", default: false, description: "`--fakeroot`" },
  binds: {
    type: "list",
    default: [],
    description: "bind mounts, `src[:/dest[:ro|rw]]` each",
    check: (binds) => {
      const bad = binds.find((bind) => !/^[^:,]+(:\/[^:,]*(:(ro|rw))?)?$/.test(bind));
      return bad === undefined ? undefined : `wants "src[:/dest[:ro|rw]]", got ${JSON.stringify(bad)}`;
    },
  },
  startArgs: { type: "list", default: [], description: 'more `instance start` flags as given, e.g. `["--nv"]` for GPUs' },
  workdir: {
    type: "string",
    defaultText: "the instance's",
    description: "default working directory of commands (absolute)",
    check: (workdir) => (workdir.startsWith("/") ? undefined : "must be an absolute path inside the instance"),
  },
  env: { type: "env", default: {}, description: "variables set for every command (on top of the instance's clean environment)" },
  startTimeoutMs: { type: "integer", min: 1, default: 300_000, description: "how long `instance start` may take, image pulls included" },
  tempRoot: { type: "string", defaultText: "`$TMPDIR` or `/tmp`", description: "where `tempDir()` creates directories in the instance" },
  /** Needs python3 in the image; without it (or after the agent died twice) commands run as plain execs. */
  agent: {
    type: "boolean",
    default: true,
    description:
      "run commands, files and the stream relay through one long-lived helper in the instance (one `exec` in all); `false`: an `exec` each",
  },
});

/** The options of {@link createEnvironment}: `image` to start an instance from, or `instance` to use a running one. */
export type SingularityEnvironmentOptions = OptionsInput<typeof environmentOptions.specs>;

/** Options checked, with defaults applied. */
export type ParsedSingularityOptions = OptionValues<typeof environmentOptions.specs>;

/** Parses `raw` by the declaration, then the rules that concern two options at once. */
export function parseSingularityOptions(raw: unknown): ParsedSingularityOptions {
  const parsed = environmentOptions.parse(raw);
  if ((parsed.image === undefined) === (parsed.instance === undefined)) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      'The singularity backend needs either an image to start an instance from (image: "python.sif" or "docker://python:3.12-slim", or -o image=...) or a running instance (instance: "name"), not both',
    );
  }
  if (parsed.instance !== undefined && parsed.name !== undefined)
    environmentOptions.fail("name", "names a new instance; it cannot be given with instance");
  return parsed;
}
