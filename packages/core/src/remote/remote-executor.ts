/**
 * `execute` and `spawn` for backends whose only primitive is "start a command and get its stdio"
 * (docker exec, an ssh channel, a sandbox exec API). Built on the remote command wrapper: the
 * backend provides {@link StartExec}; this class adds the Environment contract's semantics —
 * process-tree kills through a second exec, timeouts (host timer plus an in-environment backstop),
 * abort signals, output caps and clear errors for a missing working directory.
 */
import { debugLogger } from "../debug/debug-log.js";
import { delay } from "../timers/delay.js";
import { describeCommand } from "../debug/describe-command.js";
import type { EnvironmentProcess, ExecOptions, ExecResult, KillOptions, ProcessExit, SpawnOptions } from "../environment.js";
import { CodecallError, errorMessage } from "../errors.js";
import { newRunId } from "../ids.js";
import { collectProcess, toExecResult } from "../process/collect.js";
import { LiveProcesses } from "../process/live-processes.js";
import { releasableStream } from "../process/releasable-stream.js";
import { raceAbort } from "../timers/race-abort.js";
import { shellQuote } from "../text/shell-quote.js";
import { CommandLog } from "./command-log.js";
import {
  IN_ENVIRONMENT_TIMEOUT_EXIT_CODES,
  inEnvironmentDeadlineMs,
  inEnvironmentTimeoutMs,
  isMissingCwdFailure,
  remoteCommand,
  remoteKillCommand,
} from "./remote-command.js";

/** A started remote command, as a backend delivers it. */
export interface ExecChannel {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles when the command ends; rejects when the backend loses it (connection or container gone). */
  readonly exit: Promise<ProcessExit>;
  /** Drops the host side of the channel (the remote command is not affected). Idempotent. */
  close(): void;
}

/** What {@link StartExec} is asked to run. */
export interface ExecRequest {
  /** For exec APIs that take an argv array. */
  argv: string[];
  /** The same as one shell command line. */
  command: string;
  /**
   * Set for the short commands that end other commands (kills). A backend that limits how many
   * execs run at once must never queue these behind the very commands they are meant to end.
   */
  control?: boolean;
  /**
   * Set for `spawn()`: stdin may be written and output read while the command runs. Unset for
   * commands run to completion (`execute`, helpers, kills), whose stdin is written whole and closed
   * at once: a backend with a cheaper request/response call may use it for these.
   */
  streaming?: boolean;
}

/** How a backend starts a command: `argv` for exec APIs that take one, `command` for a shell line. */
export type StartExec = (exec: ExecRequest) => Promise<ExecChannel>;

export interface RemoteExecutorOptions {
  start: StartExec;
  /** Names the backend in error messages ("docker", "ssh", ...). */
  backendId: string;
  /** Where its commands' debug lines go (shared with the environment agent's, for one numbering). */
  log?: CommandLog;
  /** See {@link ExecEnvironmentOptions.exitAfterKillMs}. */
  exitAfterKillMs?: number;
}

/**
 * The most output a helper command (mktemp, `env -0`, ...) may bring to the host. Far above what
 * they print (an environment block is at most a few MiB); a helper replaced by a script's own
 * program cannot fill host memory.
 */
const HELPER_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The longest a command whose kill cannot start is waited for (less when its in-environment timeout comes sooner). */
const KILL_RETRY_WINDOW_MS = 30_000;

/** Added to the in-environment deadline before a command whose kill cannot start is given up. */
const BACKSTOP_MARGIN_MS = 5_000;

/** Pause between attempts to start a kill that failed. */
const KILL_RETRY_PAUSE_MS = 250;

/**
 * How long after a kill (past its grace) a command's exit is waited for before it is settled
 * without one: longer than the kill retries and the in-environment backstop take, so a command
 * those end still reports its real exit.
 */
export const DEFAULT_EXIT_AFTER_KILL_MS = KILL_RETRY_WINDOW_MS + BACKSTOP_MARGIN_MS;

const log = debugLogger("backend");

export class RemoteExecutor {
  readonly #start: StartExec;
  readonly #backendId: string;
  readonly #live = new LiveProcesses<RemoteProcess>();
  #stateDir: Promise<string> | undefined;
  readonly #log: CommandLog;
  readonly #exitAfterKillMs: number;

  constructor(options: RemoteExecutorOptions) {
    this.#start = options.start;
    this.#backendId = options.backendId;
    this.#log = options.log ?? new CommandLog(options.backendId);
    this.#exitAfterKillMs = options.exitAfterKillMs ?? DEFAULT_EXIT_AFTER_KILL_MS;
  }

  /** Runs a command to completion (see `Environment.execute`). */
  async execute(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    // A command without timeout, signal or input is never killed from here: it needs no pidfile,
    // which saves a round trip on the first call (RPC pollers make many of these). One fed input
    // is ended when that input cannot be written (see collectProcess).
    const killable = options.timeoutMs !== undefined || options.signal !== undefined || options.stdin !== undefined;
    const process = await this.#launch(command, options, { killable, streaming: false });
    const collected = await collectProcess(process, {
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    });
    if (isMissingCwdFailure(collected.exit.exitCode, collected.stderr.text)) {
      throw new CodecallError("INVALID_PATH", `Working directory does not exist: ${options.cwd}`, { details: { cwd: options.cwd } });
    }
    return toExecResult(collected, process.timedOut);
  }

  /** Starts a command with streaming stdio (see `Environment.spawn`). */
  spawn(command: string, options: SpawnOptions = {}): Promise<RemoteProcess> {
    return this.#launch(command, options, { killable: true, streaming: true });
  }

  /** Kills every command still running and removes the pidfile directory (for the environment's close). */
  async dispose(): Promise<void> {
    await this.#live.killAll();
    const dir = await this.#stateDir?.catch(() => undefined);
    if (dir) await this.#run(shellExec(`rm -rf ${shellQuote(dir)}`)).catch(() => {});
  }

  /** Runs an unwrapped helper command (no env, cwd or timeout handling) and returns its stdout; rejects on failure. */
  async run(script: string, stdin?: string | Uint8Array): Promise<string> {
    log(() => `${this.#backendId} helper: ${describeCommand(script)}`);
    return this.#run(shellExec(script), stdin);
  }

  async #launch(command: string, options: SpawnOptions, mode: { killable: boolean; streaming: boolean }): Promise<RemoteProcess> {
    const { killable, streaming } = mode;
    const pidFile = killable ? `${await this.#pidDir()}/${newRunId()}.pid` : undefined;
    const wrapped = remoteCommand(command, { ...options, ...(pidFile ? { pidFile } : {}) });
    const logged = this.#log.start(command, options);
    const channel = await this.#start(streaming ? { ...wrapped, streaming } : wrapped);
    // When the in-environment timeout has surely ended the command, wherever the host stands.
    const backstopAt = options.timeoutMs === undefined ? Infinity : Date.now() + inEnvironmentDeadlineMs(options.timeoutMs) + BACKSTOP_MARGIN_MS;
    const killTree = (graceMs: number) => {
      logged.note(() => `killing its process tree (grace ${graceMs} ms)`);
      return this.#kill(pidFile, channel, graceMs, backstopAt);
    };
    const process = new RemoteProcess(channel, wrapped.stdinPrefix, killTree, this.#backendId, options.timeoutMs, this.#exitAfterKillMs);
    await process.ready.catch((error: unknown) => {
      // The wrapper waits for its header before it starts anything: release the channel, say why.
      channel.close();
      throw new CodecallError("ENVIRONMENT_FAILED", `${this.#backendId}: could not send the command to the environment: ${errorMessage(error)}`, {
        cause: error,
      });
    });
    logged.track(process.wait());
    void process.wait().then(
      (exit) => exit.unconfirmed !== undefined && logged.note(() => exit.unconfirmed!),
      () => {},
    );
    return this.#live.add(process, options);
  }

  #pidDir(): Promise<string> {
    this.#stateDir ??= this.#run(shellExec('umask 077 && mktemp -d "${TMPDIR:-/tmp}/codecall-procs-XXXXXX"')).then((output) => {
      const dir = output.trim();
      if (!dir.startsWith("/"))
        throw new CodecallError("ENVIRONMENT_FAILED", `${this.#backendId}: could not create a private directory (mktemp said: ${dir})`);
      return dir;
    });
    return this.#stateDir;
  }

  /**
   * Ends a command from a second exec. When that exec cannot start, the command is not given up at
   * once: the environment may only be out of processes (a fork bomb at its pids limit), and the
   * in-environment timeout, which needs no new process, ends it there. So the kill is retried until
   * the command ends, `backstopAt` passes or a retry window runs out; only then is it dropped as lost.
   */
  async #kill(pidFile: string | undefined, channel: ExecChannel, graceMs: number, backstopAt: number): Promise<void> {
    if (pidFile) {
      const giveUpAt = Math.min(backstopAt, Date.now() + KILL_RETRY_WINDOW_MS);
      let ended = false;
      channel.exit.then(
        () => (ended = true),
        () => (ended = true),
      );
      while (!ended) {
        try {
          await this.#run({ ...remoteKillCommand(pidFile, graceMs), control: true });
          return;
        } catch {
          if (Date.now() >= giveUpAt) break;
          await delay(KILL_RETRY_PAUSE_MS);
        }
      }
      if (ended) return;
    }
    // Never registered for killing (no timeout, no signal), or unreachable: at least release the host side.
    channel.close();
  }

  /** Runs an unwrapped helper command and returns its stdout. */
  async #run(exec: ExecRequest, stdin?: string | Uint8Array): Promise<string> {
    const channel = await this.#start(exec);
    const collected = await collectProcess(
      { stdin: channel.stdin, stdout: channel.stdout, stderr: channel.stderr, wait: () => channel.exit, kill: async () => channel.close() },
      { ...(stdin === undefined ? {} : { stdin }), maxOutputBytes: HELPER_OUTPUT_BYTES },
    );
    if (collected.stdout.truncated) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `${this.#backendId}: helper command printed over ${HELPER_OUTPUT_BYTES} bytes; its output was refused`,
      );
    }
    if (collected.exit.exitCode !== 0) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `${this.#backendId}: helper command failed (${collected.exit.exitCode}): ${collected.stderr.text.trim()}`,
      );
    }
    return collected.stdout.text;
  }
}

/**
 * A command started through a {@link RemoteExecutor}. Its exit is the backend's report, with one
 * bound: once the command was told to die (timeout, abort, close), a backend that reports no exit
 * within the kill's grace plus `exitAfterKillMs` (a frozen server, an exec API that lost the
 * command) does not hold the host. The command is then settled as killed, its exit saying why
 * ({@link ProcessExit.unconfirmed}), its output streams ended, pending input refused and its
 * channel released.
 */
export class RemoteProcess implements EnvironmentProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves once the wrapper's header is on its way (stdin ordering depends on it). */
  readonly ready: Promise<void>;
  readonly #exit: Promise<ProcessExit>;
  readonly #killTree: (graceMs: number) => Promise<void>;
  readonly #exitAfterKillMs: number;
  /** Settles the command without the backend's report. */
  readonly #giveUp: (graceMs: number) => void;
  #exited = false;
  #timedOut = false;
  #killing: Promise<void> | undefined;
  #bound: ReturnType<typeof setTimeout> | undefined;

  constructor(
    channel: ExecChannel,
    stdinPrefix: string,
    killTree: (graceMs: number) => Promise<void>,
    backendId: string,
    timeoutMs?: number,
    exitAfterKillMs = DEFAULT_EXIT_AFTER_KILL_MS,
  ) {
    this.#killTree = killTree;
    this.#exitAfterKillMs = exitAfterKillMs;
    const started = performance.now();
    const stdout = releasableStream(channel.stdout);
    const stderr = releasableStream(channel.stderr);
    this.stdout = stdout.stream;
    this.stderr = stderr.stream;
    const givenUp = new AbortController();
    const writer = channel.stdin.getWriter();
    this.ready = writer.write(new TextEncoder().encode(stdinPrefix));
    this.stdin = new WritableStream<Uint8Array>({
      // A write the backend never takes must not outlive the command.
      write: (chunk) => raceAbort(writer.write(chunk), givenUp.signal),
      close: () => raceAbort(writer.close(), givenUp.signal),
      abort: (reason) => writer.abort(reason),
    });
    const reported = channel.exit.then(
      (exit) => {
        // The in-environment timeout can end the command before the host's timer fires (a busy
        // host, a timer late by the few ms the wrapper started after it): its exit status after its
        // deadline means the same as the host's expiry.
        if (timeoutMs !== undefined && IN_ENVIRONMENT_TIMEOUT_EXIT_CODES.includes(exit.exitCode)) {
          if (performance.now() - started >= inEnvironmentTimeoutMs(timeoutMs)) this.#timedOut = true;
        }
        return exit;
      },
      (error: unknown) => {
        channel.close();
        throw new CodecallError("ENVIRONMENT_FAILED", `The ${backendId} environment lost the command: ${errorMessage(error)}`, { cause: error });
      },
    );
    let settle!: (exit: ProcessExit) => void;
    const settled = new Promise<ProcessExit>((resolve) => (settle = resolve));
    this.#giveUp = (graceMs) => {
      if (this.#exited) return;
      const unconfirmed = `${backendId} reported no end of the command within ${seconds(graceMs + exitAfterKillMs)} of its kill; the host stopped waiting for it, and it may still be running there`;
      givenUp.abort(new CodecallError("ENVIRONMENT_FAILED", `${backendId}: the command was given up: ${unconfirmed}`));
      stdout.release();
      stderr.release();
      channel.close();
      settle({ exitCode: KILLED_EXIT_CODE, signal: "SIGKILL", unconfirmed });
    };
    this.#exit = Promise.race([reported, settled]).finally(() => {
      this.#exited = true;
      clearTimeout(this.#bound);
    });
    // A rejection nobody awaits yet must not crash the host.
    this.#exit.catch(() => {});
  }

  /** True when the command was ended because its `timeoutMs` ran out. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Settles when the command ends. Rejects (`ENVIRONMENT_FAILED`) when the backend lost it. */
  wait(): Promise<ProcessExit> {
    return this.#exit;
  }

  /** Ends the command because its time ran out (unless it already ended), marking it timed out. */
  expire(graceMs: number): Promise<void> {
    if (this.#exited) return Promise.resolve();
    this.#timedOut = true;
    return this.kill({ graceMs });
  }

  /** Settles once the kill was carried out or the command ended, reported or given up (so never later than the bound). */
  kill(options: KillOptions = {}): Promise<void> {
    if (this.#exited) return Promise.resolve();
    const graceMs = options.graceMs ?? 0;
    if (this.#bound === undefined) {
      this.#bound = setTimeout(() => this.#giveUp(graceMs), graceMs + this.#exitAfterKillMs);
      (this.#bound as { unref?: () => void }).unref?.();
    }
    this.#killing ??= this.#killTree(graceMs);
    const ended = this.#exit.then(
      () => {},
      () => {},
    );
    return Promise.race([this.#killing, ended]);
  }
}

/** The exit code of a command settled as killed without its report: SIGKILL's, by the shell convention. */
const KILLED_EXIT_CODE = 128 + 9;

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** A shell snippet as both an argv and a command line. */
function shellExec(script: string): { argv: string[]; command: string } {
  return { argv: ["sh", "-c", script], command: `sh -c ${shellQuote(script)}` };
}
