/**
 * The variables a run's script starts with, built in two steps because the transport sits between
 * them: the env policy applied first (tools see the same scrubbed env, and its secret values are
 * masked in the output), then — once a transport serves the run — what its client needs and the
 * settings the Python side relies on.
 */
import { debugLogger } from "../debug/debug-log.js";
import type { Environment } from "../environment.js";
import { describeDropped, scrubEnv, type EnvPolicy, type ScrubbedEnv } from "./env-policy.js";
import { readHostEnv } from "./host-env.js";

const envLog = debugLogger("env");

/**
 * The environment's own default env filtered by `policy`; the policy's host env defaults to this
 * process's (see {@link EnvPolicy.host}).
 */
export async function scrubRunEnv(environment: Environment, policy: EnvPolicy | undefined): Promise<ScrubbedEnv> {
  const scrubbed = scrubEnv(await environment.defaultEnv(), { host: readHostEnv(), ...policy });
  envLog(() => describeDropped(scrubbed.dropped));
  return scrubbed;
}

/** Where the script's variables come from, besides the env policy. */
export interface GuestEnvParts {
  /** The run's scrubbed env (see {@link scrubRunEnv}). */
  scrubbed: Readonly<Record<string, string>>;
  /** The serving transport's variables (`TransportSession.guestEnv`). */
  transport: Readonly<Record<string, string>>;
  /** Holds the stub module: first on the import path. */
  runDir: string;
  /** The frame limit, so the guest client refuses what the host would. */
  maxFrameBytes: number;
  /**
   * Someone watches the output as it comes (`onStdout`, `onStderr`): stdout is then line-buffered,
   * as on a terminal, so each line reaches the host as it ends. Otherwise stdout is block-buffered,
   * one write per 8 KiB however many lines. Either way the guest's start-up hook
   * (`python/sitecustomize.py`) sets it up and flushes what is buffered when the run is killed.
   */
  liveOutput: boolean;
}

/** The complete env of the script's process (it starts from nothing else). */
export function guestEnv(parts: GuestEnvParts): Record<string, string> {
  // Buffering is the run's choice, not the host shell's: a PYTHONUNBUFFERED the host exports (for
  // its own tools) would turn a flood into a write per line, and without live output nobody sees
  // the difference (a kill flushes).
  const { PYTHONUNBUFFERED: _hostChoice, ...scrubbed } = parts.scrubbed;
  const inherited = scrubbed.PYTHONPATH;
  return {
    ...scrubbed,
    ...parts.transport,
    PYTHONPATH: inherited ? `${parts.runDir}:${inherited}` : parts.runDir,
    // The run dir is removed after the run: caches there are written for nothing.
    PYTHONDONTWRITEBYTECODE: "1",
    // Live: each line as it ends, as on a terminal (unbuffered where the start-up hook cannot run).
    ...(parts.liveOutput ? { PYTHONUNBUFFERED: "1", CODECALL_OUTPUT: "lines" } : { CODECALL_OUTPUT: "buffered" }),
    // The host decodes the output as UTF-8, whatever the environment's locale.
    PYTHONIOENCODING: "utf-8",
    PYTHONUTF8: "1",
    CODECALL_RPC_MAX_FRAME: String(parts.maxFrameBytes),
  };
}
