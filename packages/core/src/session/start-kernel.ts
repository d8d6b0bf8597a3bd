/**
 * Starting a session's kernel: the steps of `executeCode` up to the script's start — a private
 * run dir, the scrubbed env, the transport (opened once for the kernel's whole life), the guest
 * installed with the kernel as its script — then the kernel spawned as a script is (under the
 * launcher, or directly where the environment holds its tree: the process-tree rules of a run hold
 * for it) with its stdin kept open for the cells, and waited
 * for until it serves them.
 */

import type { Environment } from "../environment.js";
import { CodecallError } from "../errors.js";
import type { ScrubbedEnv } from "../execute/env-policy.js";
import { guestEnv, scrubRunEnv } from "../execute/guest-env.js";
import { installGuest } from "../execute/install-guest.js";
import { openTransport, type OpenedTransport } from "../execute/open-transport.js";
import type { PreparedRun } from "../execute/prepare-run.js";
import { formatSeconds } from "../execute/result.js";
import { scriptLaunch } from "../guest/launcher.js";
import kernelSource from "../guest/python/_codecall_kernel.py?raw";
import { newRunId, newRunToken } from "../ids.js";
import { delay } from "../timers/delay.js";
import { KernelProcess } from "./kernel-process.js";
import type { CodeSessionOptions } from "./session-options.js";
import { SessionDispatcher } from "./session-dispatcher.js";

/**
 * The least time a kernel gets to start, however short the cells' time limit (it gets that limit
 * when longer): Python, the tools module and, on a remote backend, the spawn's own round trips
 * took 15–20 s on a loaded machine (Daytona's session commands).
 */
const KERNEL_START_FLOOR_MS = 60_000;

/** A running kernel and what serves it; `close()` ends all of it. */
export interface StartedKernel {
  readonly process: KernelProcess;
  readonly dispatcher: SessionDispatcher;
  readonly opened: OpenedTransport;
  readonly scrubbed: ScrubbedEnv;
  /** Values to mask in its cells' output; undefined when redaction is off. */
  readonly knownSecrets: readonly string[] | undefined;
  /** Its token: the cells' dispatchers are made with it (the session dispatcher checks it). */
  readonly token: string;
  /** Ends the kernel's tree, stops the transport and removes the run dir. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a kernel and waits until it serves cells. An abort of `signal` (the first cell's) ends
 * the wait early: the cell's stop then interrupts the cell, which the kernel never starts.
 */
export async function startKernel(
  session: PreparedRun,
  options: CodeSessionOptions,
  liveOutput: boolean,
  signal?: AbortSignal,
): Promise<StartedKernel> {
  const { environment, limits } = session;
  const runDir = await environment.tempDir();
  const token = newRunToken();
  const runId = newRunId();
  const dispatcher = new SessionDispatcher({
    token,
    environment,
    runId,
    maxFrameBytes: limits.maxFrameBytes,
    maxJsonDepth: limits.maxJsonDepth,
  });
  let opening: Promise<OpenedTransport> | undefined;
  let process: KernelProcess | undefined;
  const close = async () => {
    dispatcher.close("the session has ended");
    await process?.kill();
    const opened = await opening?.catch(() => undefined);
    await opened?.session.close().catch(() => {});
    await removeQuietly(environment, runDir);
  };
  try {
    const scrubbed = await scrubRunEnv(environment, options.env);
    opening = openTransport(session.candidates, environment, {
      runId,
      runDir,
      token,
      dispatcher,
      maxFrameBytes: limits.maxFrameBytes,
      interpreter: session.interpreter,
    });
    const guest = { environment, runDir, code: kernelSource, tools: session.tools, moduleName: session.moduleName };
    const { scriptPath, archivePath, opened } = await installGuest(guest, session.candidates[0], opening);
    const launch = scriptLaunch(session.interpreter, scriptPath, archivePath);
    const spawned = await environment.spawn(launch.command, {
      whenTreeHeld: launch.whenTreeHeld,
      env: guestEnv({ scrubbed: scrubbed.env, transport: opened.session.guestEnv, runDir, maxFrameBytes: limits.maxFrameBytes, liveOutput }),
      clearEnv: true,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    process = new KernelProcess(spawned, { nonce: newRunToken(), module: session.moduleName });
    await untilServing(process, Math.max(limits.timeoutMs, KERNEL_START_FLOOR_MS), signal);
    const knownSecrets = options.redactSecrets === false ? undefined : scrubbed.secretValues;
    let closing: Promise<void> | undefined;
    return { process, dispatcher, opened, scrubbed, knownSecrets, token, close: () => (closing ??= close()) };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Waits until the kernel serves cells (or has ended: its first cell then says how), so that its
 * start — python, the tools module's import, and on a remote backend the spawn's own round trips,
 * seconds under load — is not charged to the time limit of the cell that needed it. A kernel that
 * does not start within `limitMs` is a failed start; an abort of `signal` just ends the wait.
 */
async function untilServing(kernel: KernelProcess, limitMs: number, signal: AbortSignal | undefined): Promise<void> {
  const done = new AbortController();
  const waiting = signal === undefined ? done.signal : AbortSignal.any([signal, done.signal]);
  const late = delay(limitMs, { signal: waiting }).then(
    () => {
      throw new CodecallError("ENVIRONMENT_FAILED", `the session's kernel did not start within ${formatSeconds(limitMs)}`);
    },
    () => {}, // Aborted: started, or the first cell was aborted meanwhile.
  );
  try {
    await Promise.race([kernel.started, late]);
  } finally {
    done.abort();
  }
}

async function removeQuietly(environment: Environment, path: string): Promise<void> {
  try {
    await environment.remove(path);
  } catch {
    // The environment may be gone (that is how the kernel ended); nothing is left to clean then.
  }
}
