/**
 * Options of the modal backend, declared once: `createEnvironment()`, config files and the CLI's
 * `-o` pairs are all parsed by this declaration, and `codecall run --backend modal --help` prints
 * it. Checked before anything is sent to Modal.
 */
import { CodecallError } from "@codecall/core";
import { defineOptions, type OptionsInput, type OptionValues } from "@codecall/core/backend-kit";

/** Modal's limit on a sandbox's lifetime. */
const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The SDK refuses timeouts that are not whole seconds; say so before it does. */
const wholeSeconds = (ms: number) => (ms % 1000 === 0 ? undefined : `must be whole seconds (a multiple of 1000), got ${ms}`);

const absolute = (path: string) => (path.startsWith("/") ? undefined : "must be an absolute path inside the sandbox");

/** The modal backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("modal", {
  appName: { type: "string", default: "codecall", description: "the Modal app sandboxes are created in (created when missing)" },
  image: {
    type: "string",
    default: "python:3.13-slim",
    description: "a registry tag (`python:3.13-slim`) or the id of an existing Modal image (`im-…`); needs `python3` and `sh`",
  },
  sandboxId: { type: "string", description: "attach to this running sandbox instead of creating one; it is never terminated by close" },
  sandboxName: {
    type: "string",
    description: "attach to the running sandbox of this name in `appName` instead of creating one; never terminated by close",
  },
  name: { type: "string", description: "name of the sandbox to create (unique among the app's running sandboxes)" },
  lifetimeMs: {
    type: "integer",
    min: 1000,
    max: MAX_LIFETIME_MS,
    default: 3_600_000,
    description: "the created sandbox's maximum lifetime (Modal's own default is only 5 minutes); whole seconds",
    check: wholeSeconds,
  },
  idleTimeoutMs: {
    type: "integer",
    min: 1000,
    max: MAX_LIFETIME_MS,
    defaultText: "none",
    description: "Modal ends the created sandbox after this long without activity; whole seconds",
    check: wholeSeconds,
  },
  workdir: {
    type: "string",
    defaultText: "the image's",
    description: "working directory of the sandbox and of commands (absolute); base of relative paths",
    check: absolute,
  },
  env: { type: "env", default: {}, description: "variables every command gets (sent with each command, never stored in Modal's sandbox definition)" },
  cpu: { type: "number", defaultText: "Modal's", description: "CPU cores reserved for the created sandbox (fractions allowed)" },
  memoryMiB: { type: "integer", min: 1, defaultText: "Modal's", description: "memory reserved for the created sandbox, in MiB" },
  regions: { type: "list", defaultText: "any", description: "regions the created sandbox may run in, e.g. `us-east-1`" },
  cloud: { type: "string", defaultText: "any", description: "cloud provider of the created sandbox (`aws`, `gcp`, `oci`, …)" },
  blockNetwork: { type: "boolean", default: false, description: "no network access from the created sandbox" },
  cidrAllowlist: { type: "list", defaultText: "all", description: "the only CIDRs the created sandbox may reach (not with `blockNetwork`)" },
  tags: { type: "map", default: {}, description: 'tags on the created sandbox (`codecall: "true"` is always added, to find leftovers)' },
  environment: { type: "string", defaultText: "the profile's", description: "the Modal environment (`MODAL_ENVIRONMENT`, else the profile's)" },
  tokenId: {
    type: "string",
    defaultText: "the SDK's sources",
    description: "Modal token id; by default `MODAL_TOKEN_ID`, else the active profile of `~/.modal.toml`",
  },
  tokenSecret: {
    type: "string",
    secret: true,
    defaultText: "the SDK's sources",
    description: "Modal token secret; by default `MODAL_TOKEN_SECRET`, else the active profile of `~/.modal.toml`",
  },
  tempRoot: {
    type: "string",
    defaultText: "`$TMPDIR` or `/tmp`",
    description: "where `tempDir()` creates directories in the sandbox",
    check: absolute,
  },
  /** Needs python3 in the image; without it (or after the agent died twice) commands run as plain execs. */
  agent: {
    type: "boolean",
    default: true,
    description:
      "run commands, files and the stream relay through one long-lived helper in the sandbox (one `sandbox.exec` in all); `false`: an exec each",
  },
});

/** The options of {@link createEnvironment}. */
export type ModalEnvironmentOptions = OptionsInput<typeof environmentOptions.specs>;

/** Options checked, with defaults applied. */
export type ParsedModalOptions = OptionValues<typeof environmentOptions.specs>;

/** Options that shape a sandbox at creation: meaningless when attaching to one. */
const CREATION_OPTIONS = ["name", "idleTimeoutMs", "cpu", "memoryMiB", "regions", "cloud", "cidrAllowlist"] as const;

/** Parses `raw` by the declaration, then the rules that concern two options at once. */
export function parseModalOptions(raw: unknown): ParsedModalOptions {
  const parsed = environmentOptions.parse(raw);
  if (parsed.sandboxId !== undefined && parsed.sandboxName !== undefined) {
    throw new CodecallError("INVALID_OPTIONS", "The modal backend attaches to one sandbox: give sandboxId or sandboxName, not both");
  }
  if (parsed.sandboxId !== undefined || parsed.sandboxName !== undefined) {
    const given = [...CREATION_OPTIONS.filter((name) => parsed[name] !== undefined), ...(parsed.blockNetwork ? ["blockNetwork"] : [])];
    const attach = parsed.sandboxId === undefined ? "sandboxName" : "sandboxId";
    if (given[0] !== undefined) environmentOptions.fail(given[0], `shapes a sandbox this backend creates; it cannot be given with ${attach}`);
  }
  if (parsed.blockNetwork && parsed.cidrAllowlist !== undefined) environmentOptions.fail("cidrAllowlist", "cannot be given with blockNetwork");
  if ((parsed.tokenId === undefined) !== (parsed.tokenSecret === undefined)) {
    environmentOptions.fail(parsed.tokenId === undefined ? "tokenId" : "tokenSecret", "must be given together with the other half of the token");
  }
  if (parsed.cpu !== undefined && !(parsed.cpu > 0)) environmentOptions.fail("cpu", `must be a positive number of cores, got ${parsed.cpu}`);
  return parsed;
}
