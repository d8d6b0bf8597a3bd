/**
 * Options of the Daytona backend, declared once: `createEnvironment()`, config files and the CLI's
 * `-o` pairs are all parsed by this declaration, and `codecall run --backend daytona --help` prints
 * it. Error messages name options, never values (the API key is one of them).
 */
import { CodecallError } from "@codecall/core";
import { defineOptions, MAX_TIMER_DELAY_MS, type OptionsInput, type OptionValues } from "@codecall/core/backend-kit";

const absolute = (path: string) => (path.startsWith("/") ? undefined : "must be an absolute path inside the sandbox");

/** The Daytona backend's options (the resolver and the CLI read them under this name). */
export const environmentOptions = defineOptions("daytona", {
  apiKey: { type: "string", secret: true, defaultText: "`DAYTONA_API_KEY` (env, `.env`)", description: "the Daytona API key" },
  apiUrl: {
    type: "string",
    defaultText: "`DAYTONA_API_URL`, else Daytona's cloud",
    description: "the Daytona API, e.g. `https://app.daytona.io/api`",
  },
  target: { type: "string", defaultText: "`DAYTONA_TARGET`, else the organization's", description: "the region new sandboxes run in" },
  sandbox: { type: "string", description: "id or name of an existing sandbox to use (started if stopped; never deleted by `close()`)" },
  image: { type: "string", description: "image of a new sandbox, e.g. `python:3.12-slim` (Daytona builds it on first use)" },
  snapshot: { type: "string", defaultText: "Daytona's default snapshot", description: "snapshot of a new sandbox (not with `image`)" },
  name: { type: "string", defaultText: "`codecall-<random>`", description: "name of a new sandbox" },
  labels: { type: "map", default: {}, description: "labels of a new sandbox (`codecall: true` is always added)" },
  cpu: { type: "integer", min: 1, defaultText: "Daytona's", description: "vCPUs of a new sandbox (with `image`)" },
  memory: { type: "integer", min: 1, defaultText: "Daytona's", description: "memory of a new sandbox in GiB (with `image`)" },
  disk: { type: "integer", min: 1, defaultText: "Daytona's", description: "disk of a new sandbox in GiB (with `image`)" },
  autoStopInterval: {
    type: "integer",
    min: 0,
    default: 15,
    description: "minutes without activity before Daytona stops a new sandbox (0: never); a host that dies leaks nothing",
  },
  ephemeral: { type: "boolean", default: true, description: "a new sandbox is deleted once it stops, not kept" },
  networkBlockAll: { type: "boolean", default: false, description: "a new sandbox gets no network at all" },
  networkAllowList: { type: "list", default: [], description: "CIDR ranges a new sandbox may reach (up to 5); nothing else" },
  workdir: {
    type: "string",
    defaultText: "the sandbox's",
    description: "working directory of commands, base of relative file paths",
    check: absolute,
  },
  env: { type: "env", default: {}, description: "variables every command gets (not with `clearEnv`); part of `defaultEnv()`" },
  tempRoot: { type: "string", defaultText: "`$TMPDIR` or `/tmp`", description: "where `tempDir()` creates directories", check: absolute },
  startTimeoutMs: {
    type: "integer",
    min: 1_000,
    max: MAX_TIMER_DELAY_MS,
    default: 120_000,
    description: "how long creating (or starting) the sandbox may take, image builds included",
  },
  livenessIntervalMs: {
    type: "integer",
    min: 100,
    max: MAX_TIMER_DELAY_MS,
    default: 3_000,
    description: "while commands run and nothing arrives, how often the sandbox is checked (a deleted one fails them)",
  },
  /**
   * On by default: faster and fewer API calls for commands; bulk output pays input calls for flow
   * control (see the README). Needs python3; without it (or after the agent died twice) session
   * commands are used.
   */
  agent: {
    type: "boolean",
    default: true,
    description:
      "run commands, files and the stream relay through one long-lived helper in the sandbox (one session command in all); `false`: a session command each",
  },
});

/** The options of {@link createEnvironment}. */
export type DaytonaEnvironmentOptions = OptionsInput<typeof environmentOptions.specs>;

/** Options checked, with defaults applied. */
export type ParsedDaytonaOptions = OptionValues<typeof environmentOptions.specs>;

/** The options that only shape a sandbox this backend creates. */
const CREATE_ONLY = ["image", "snapshot", "name", "cpu", "memory", "disk"] as const;

/** Parses `raw` by the declaration, then the rules that concern two options at once. */
export function parseDaytonaOptions(raw: unknown): ParsedDaytonaOptions {
  const parsed = environmentOptions.parse(raw);
  if (parsed.image !== undefined && parsed.snapshot !== undefined) invalid("give `image` or `snapshot`, not both");
  if (parsed.sandbox !== undefined) {
    const given = CREATE_ONLY.filter((name) => parsed[name] !== undefined);
    if (given.length > 0) invalid(`\`${given.join("`, `")}\` shape a new sandbox; they cannot be given with \`sandbox\``);
  }
  if (parsed.image === undefined && (parsed.cpu ?? parsed.memory ?? parsed.disk) !== undefined) {
    invalid("`cpu`, `memory` and `disk` need `image` (a snapshot has its own resources)");
  }
  if (parsed.networkAllowList.length > 5) invalid("`networkAllowList` takes at most 5 CIDR ranges");
  const badCidr = parsed.networkAllowList.find((cidr) => !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr));
  if (badCidr !== undefined) environmentOptions.fail("networkAllowList", `wants IPv4 CIDR ranges like 10.0.0.0/8, got ${JSON.stringify(badCidr)}`);
  return parsed;
}

function invalid(message: string): never {
  throw new CodecallError("INVALID_OPTIONS", `daytona: ${message}`);
}
