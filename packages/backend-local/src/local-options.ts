/**
 * The options of the local backend, declared once: `createEnvironment()`, config files and the
 * CLI's `-o` pairs are all parsed by this declaration (so `-o foo=bar` is refused, not ignored), and
 * `codecall run --help` prints it.
 */
import { defineOptions, type OptionsInput } from "@codecall/core/plugin-kit";

/** The local backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("local", {
  cwd: { type: "string", defaultText: "`process.cwd()`", description: "working directory of commands, and the base of relative file paths" },
  // A map, not env: `process.env` may hold names a shell cannot export, and they are the host's own.
  env: {
    type: "map",
    defaultText: "`process.env`",
    description: "the variables commands get by default (`executeCode` still scrubs them: see core's env policy)",
  },
  shell: { type: "string", default: "/bin/sh", description: "the POSIX shell that runs command strings" },
  tempRoot: { type: "string", defaultText: "the OS temp dir", description: "where `tempDir()` creates its private (0700) directories" },
});

/** The options of {@link createEnvironment}. */
export type LocalEnvironmentOptions = OptionsInput<typeof environmentOptions.specs>;
