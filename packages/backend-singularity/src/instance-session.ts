/**
 * One Apptainer instance and the CLI that drives it. Commands run as `apptainer exec --cleanenv
 * instance://NAME ...`, each a child process on this machine (through the local backend, which
 * gives them process groups and Web streams); `--cleanenv` on every exec, because the instance's
 * own `--cleanenv` does not carry over to later execs, and without it the host's environment —
 * secrets included — would reach the script.
 */
import { CodecallError, newRunId, shellQuote, type ExecChannel } from "@codecall/core";
import { createEnvironment as createHostEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import type { ParsedSingularityOptions } from "./singularity-options.js";

/** `apptainer exec` exits 255 with a FATAL message when it cannot run the command at all. */
const CLI_FAILURE_EXIT_CODE = 255;
/** Bound on the short CLI calls (probe, stop). */
const CONTROL_TIMEOUT_MS = 60_000;

export class InstanceSession {
  /** The instance's name. */
  readonly name: string;
  readonly #options: ParsedSingularityOptions;
  readonly #owned: boolean;
  readonly #host: LocalEnvironment;
  #binary: Promise<string> | undefined;
  #started = false;
  /** Set once close began: commands ending now are being ended on purpose, not lost. */
  #releasing = false;

  constructor(options: ParsedSingularityOptions) {
    this.#options = options;
    this.#owned = options.instance === undefined;
    this.name = options.instance ?? options.name ?? `codecall-${newRunId()}`;
    this.#host = createHostEnvironment();
  }

  /** Starts the instance (when it is ours) and checks it answers. Runs once; a failure is retried on the next call. */
  ready(): Promise<string> {
    this.#binary ??= this.#start();
    this.#binary.catch(() => (this.#binary = undefined));
    return this.#binary;
  }

  /** Runs `argv` in the instance. */
  async exec(argv: readonly string[]): Promise<ExecChannel> {
    const binary = await this.ready();
    const process = await this.#host.spawn(this.#execLine(binary, argv));
    return {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      exit: process.wait().then(async (exit) => {
        // The CLI's own failure (255) or a death by signal may be the instance going away (stop
        // kills everything in it); both are also ordinary exits, so ask the instance.
        if (!this.#releasing && (exit.exitCode === CLI_FAILURE_EXIT_CODE || exit.exitCode > 128) && !(await this.#answers(binary))) {
          throw new CodecallError("ENVIRONMENT_FAILED", `the instance ${this.name} is gone (stopped or crashed)`);
        }
        return exit;
      }),
      // The command is a descendant of the CLI process: ending that tree releases both.
      close: () => void process.kill().catch(() => {}),
    };
  }

  /** From now on, commands that end are being ended on purpose (close is killing them): no liveness checks. */
  markClosing(): void {
    this.#releasing = true;
  }

  /** Stops the instance when this session started it. Idempotent. */
  async release(): Promise<void> {
    this.#releasing = true;
    const binary = this.#binary;
    this.#binary = Promise.reject(new CodecallError("ENVIRONMENT_CLOSED", `The singularity environment is closed`));
    this.#binary.catch(() => {});
    try {
      if (this.#owned && this.#started && binary) {
        const stop = await this.#host.execute(commandLine(await binary, ["instance", "stop", this.name]), { timeoutMs: CONTROL_TIMEOUT_MS });
        // Already gone (stopped from outside) is fine: it is what close() wants.
        if (stop.exitCode !== 0 && !/no instance found/i.test(stop.stderr)) {
          throw new CodecallError("ENVIRONMENT_FAILED", `Could not stop the instance ${this.name}: ${lastLines(stop.stderr)}`);
        }
      }
    } finally {
      this.#started = false;
      await this.#host.close();
    }
  }

  async #start(): Promise<string> {
    const binary = await this.#findBinary();
    const options = this.#options;
    if (this.#owned && !this.#started) {
      const args = ["instance", "start", ...this.#startFlags(), options.image!, this.name];
      const started = await this.#host.execute(commandLine(binary, args), { timeoutMs: options.startTimeoutMs });
      if (started.timedOut)
        throw new CodecallError(
          "ENVIRONMENT_FAILED",
          `${binary} instance start took over ${options.startTimeoutMs / 1000} s (image ${options.image}); raise startTimeoutMs if the image is still being pulled`,
        );
      if (started.exitCode !== 0)
        throw new CodecallError("ENVIRONMENT_FAILED", `${binary} instance start failed (exit ${started.exitCode}): ${lastLines(started.stderr)}`);
      this.#started = true;
    }
    const probe = await this.#host.execute(this.#execLine(binary, ["sh", "-c", "echo codecall-ready"]), { timeoutMs: CONTROL_TIMEOUT_MS });
    if (probe.stdout.trim() !== "codecall-ready") {
      const why = lastLines(probe.stderr) || `exit ${probe.exitCode}`;
      if (this.#started)
        await this.#host.execute(commandLine(binary, ["instance", "stop", this.name]), { timeoutMs: CONTROL_TIMEOUT_MS }).catch(() => {});
      this.#started = false;
      throw new CodecallError("ENVIRONMENT_FAILED", `The instance ${this.name} cannot run commands (it needs sh): ${why}`);
    }
    return binary;
  }

  #startFlags(): string[] {
    const options = this.#options;
    return [
      ...(options.containAll ? ["--containall"] : []),
      ...(options.writableTmpfs ? ["--writable-tmpfs"] : []),
      ...(options.fakeroot ? ["--fakeroot"] : []),
      ...options.binds.flatMap((bind) => ["--bind", bind]),
      ...options.startArgs,
    ];
  }

  #execLine(binary: string, argv: readonly string[]): string {
    return commandLine(binary, ["exec", "--cleanenv", `instance://${this.name}`, ...argv]);
  }

  async #answers(binary: string): Promise<boolean> {
    const probe = await this.#host.execute(this.#execLine(binary, ["true"]), { timeoutMs: CONTROL_TIMEOUT_MS }).catch(() => undefined);
    return probe?.exitCode === 0;
  }

  async #findBinary(): Promise<string> {
    const wanted = this.#options.binary;
    const candidates = wanted === undefined ? ["apptainer", "singularity"] : [wanted];
    const found = await this.#host.execute(candidates.map((name) => `command -v ${shellQuote(name)}`).join(" || "));
    const path = found.stdout.trim().split("\n")[0];
    if (found.exitCode !== 0 || !path) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        wanted === undefined
          ? "Neither apptainer nor singularity is on PATH. Install Apptainer (https://apptainer.org/docs/admin/main/installation.html) or give the CLI's path as the binary option"
          : `The singularity backend's binary ${JSON.stringify(wanted)} was not found (not on PATH and not an executable path)`,
      );
    }
    return path;
  }
}

/** `binary args...` as one shell line for the local backend. */
function commandLine(binary: string, args: readonly string[]): string {
  return `exec ${[binary, ...args].map(shellQuote).join(" ")}`;
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" / ");
}
