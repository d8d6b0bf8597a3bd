/**
 * A command the environment agent runs, as an `EnvironmentProcess`: its stdio are agent streams,
 * its exit comes as an event, and a kill is one request — the agent signals everything below the
 * command's shepherd, however it escaped. The timeout is the agent's to enforce (it holds when the
 * host is gone); the host only learns from the exit whether it fired.
 */
import type { EnvironmentProcess, KillOptions, ProcessExit } from "../environment.js";
import { CodecallError } from "../errors.js";
import type { WatchedProcess } from "../process/live-processes.js";
import type { AgentLink, AgentLostError, EventHandler } from "./agent-link.js";
import type { InboundStream, OutboundStream } from "./agent-streams.js";
import { delay } from "../timers/delay.js";

/** How long the agent may take to answer a kill before it counts as lost. */
const KILL_ANSWER_MS = 15_000;

/** What the agent needs to run one command (besides its streams). */
export interface SpawnRequest {
  command: string;
  /** A run's archive, unpacked into its directory before the command starts (`TreeHeldCommand.unpack`). */
  unpack: string | null;
  env: Readonly<Record<string, string>>;
  clearEnv: boolean;
  cwd: string | null;
  timeoutMs: number | null;
  /** Between SIGTERM and SIGKILL when the timeout fires. */
  graceMs: number;
}

export class AgentProcess implements EnvironmentProcess, WatchedProcess, EventHandler {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly #link: AgentLink;
  readonly #backendId: string;
  readonly #streams: readonly [OutboundStream, InboundStream, InboundStream];
  readonly #exit: Promise<ProcessExit>;
  #settle!: (exit: ProcessExit) => void;
  #fail!: (error: Error) => void;
  #id = 0;
  #exited = false;
  #timedOut = false;

  private constructor(link: AgentLink, backendId: string) {
    this.#link = link;
    this.#backendId = backendId;
    this.#streams = [link.outbound(), link.inbound(), link.inbound()];
    this.stdin = this.#streams[0].writable;
    this.stdout = this.#streams[1].readable;
    this.stderr = this.#streams[2].readable;
    this.#exit = new Promise((resolve, reject) => {
      this.#settle = resolve;
      this.#fail = reject;
    });
    // A rejection nobody awaits yet must not crash the host.
    this.#exit.catch(() => {});
  }

  /** Starts `request` through `link`; rejects as the spawn request does (AgentRequestError, AgentLostError). */
  static async start(link: AgentLink, request: SpawnRequest, backendId: string): Promise<AgentProcess> {
    const process = new AgentProcess(link, backendId);
    const [stdin, stdout, stderr] = process.#streams;
    const { id, reply } = link.request("spawn", { ...request, stdin: stdin.id, stdout: stdout.id, stderr: stderr.id }, process);
    process.#id = id;
    try {
      await reply;
    } catch (error) {
      for (const stream of process.#streams) link.forget(stream.id);
      throw error;
    }
    return process;
  }

  /** True when the agent ended the command because its `timeoutMs` ran out. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  wait(): Promise<ProcessExit> {
    return this.#exit;
  }

  /**
   * Asks the agent to end the tree. An agent that does not answer within {@link KILL_ANSWER_MS}
   * is given up as lost (the backend under it hangs): the command is then reported lost rather
   * than waited for forever.
   */
  async kill(options: KillOptions = {}): Promise<void> {
    if (this.#exited) return;
    const { reply } = this.#link.request("kill", { command: this.#id, graceMs: options.graceMs ?? 0 });
    const answered = await Promise.race([
      reply.then(
        () => true,
        () => true,
      ),
      delay(KILL_ANSWER_MS, { unref: true }).then(() => false),
    ]);
    if (!answered) this.#link.abandon(`the agent did not answer a kill within ${KILL_ANSWER_MS / 1000} s`);
  }

  expire(graceMs: number): Promise<void> {
    if (this.#exited) return Promise.resolve();
    this.#timedOut = true;
    return this.kill({ graceMs });
  }

  /** The agent's exit event: `{ exit, signal, timedOut }`. */
  event(value: Record<string, unknown>): void {
    const { exit, signal, timedOut } = value;
    if (typeof exit !== "number" || this.#exited) return;
    this.#exited = true;
    if (timedOut === true) this.#timedOut = true;
    this.#link.dropHandler(this.#id);
    this.#settle(typeof signal === "string" ? { exitCode: exit, signal } : { exitCode: exit });
  }

  lost(error: AgentLostError): void {
    this.#exited = true;
    this.#fail(new CodecallError("ENVIRONMENT_FAILED", `The ${this.#backendId} environment lost the command: ${error.message}`, { cause: error }));
  }
}
