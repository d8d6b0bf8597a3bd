/**
 * The environment agent's life inside one `ExecEnvironment`: started on the first operation that
 * wants it, kept while it answers, started once more after it dies, and given up for plain backend
 * execs after that — or at once when it cannot start at all (no python3, one too old). Debug lines
 * (`CODECALL_DEBUG=backend`) say each of these steps, so a log shows which path an operation took.
 */
import { debugLogger } from "../debug/debug-log.js";
import { CodecallError, errorMessage } from "../errors.js";
import { isCommandNotFound } from "../execute/result.js";
import type { CommandLog } from "../remote/command-log.js";
import type { StartExec } from "../remote/remote-executor.js";
import { agentExec, agentSource } from "./agent-boot.js";
import { AgentLink, AgentStartError, type AgentHello } from "./agent-link.js";
import { AgentOperations } from "./agent-operations.js";
import type { AgentWatchOptions } from "./agent-watchdog.js";

export interface AgentSupervisorOptions {
  backendId: string;
  /** The backend's exec, which starts the agent. */
  start: StartExec;
  /** Ends a process by pid with a plain exec: the backstop for an agent that does not exit when told. */
  killPid(pid: number): Promise<void>;
  log: CommandLog;
  /** How long the agent may take to say hello (default 15 s). */
  startTimeoutMs?: number;
  /** How an agent that stops answering is noticed (see `agent-watchdog.ts`). */
  watch?: AgentWatchOptions;
}

type State =
  | { kind: "idle" }
  | { kind: "starting"; operations: Promise<AgentOperations | undefined> }
  | { kind: "up"; operations: AgentOperations }
  | { kind: "off" }
  | { kind: "closed" };

/** The first start and one restart. */
const MAX_STARTS = 2;
/** How long a lost or broken agent gets to exit on its own before it is killed by pid. */
const RETIRE_GRACE_MS = 2_000;

const log = debugLogger("backend");

export class AgentSupervisor {
  readonly #options: AgentSupervisorOptions;
  #state: State = { kind: "idle" };
  #starts = 0;

  constructor(options: AgentSupervisorOptions) {
    this.#options = options;
  }

  /**
   * The running agent's operations, started when needed; `undefined`: use plain execs. Rejects
   * with `ENVIRONMENT_CLOSED` once the environment is closing (an operation that waited for the
   * agent must not start anything now).
   */
  async operations(): Promise<AgentOperations | undefined> {
    const state = this.#state;
    if (state.kind === "up" || state.kind === "starting") return state.operations;
    if (state.kind === "off") return undefined;
    if (state.kind === "closed") throw this.#closedError();
    const operations = this.#start();
    this.#state = { kind: "starting", operations };
    return operations;
  }

  /** Ends the agent (and everything it runs); plain execs only from now on. Idempotent. */
  async close(): Promise<void> {
    const state = this.#state;
    this.#state = { kind: "closed" };
    // A start in progress sees the state and closes what it started.
    if (state.kind === "starting") await state.operations.catch(() => {});
    if (state.kind === "up") await state.operations.close();
  }

  async #start(): Promise<AgentOperations | undefined> {
    const { backendId } = this.#options;
    this.#starts += 1;
    let link: AgentLink | undefined;
    try {
      const channel = await this.#options.start(agentExec());
      const begun = performance.now();
      link = new AgentLink(channel, agentSource(), this.#options.watch);
      const hello = await link.started(this.#options.startTimeoutMs ?? 15_000);
      const operations = new AgentOperations(link, hello, backendId, this.#options.log);
      if (this.#state.kind === "closed") {
        await operations.close();
        throw this.#closedError();
      }
      this.#state = { kind: "up", operations };
      log(() => `${backendId} agent: up in ${Math.round(performance.now() - begun)} ms (${describeHello(hello)})`);
      const started = link;
      void link.ended.then((why) => this.#onLost(operations, started, hello, why));
      return operations;
    } catch (error) {
      if (link) void this.#retire(link, undefined);
      if (this.#state.kind === "closed") throw this.#closedError();
      if (CodecallError.isInstance(error, "ENVIRONMENT_CLOSED")) {
        this.#state = { kind: "idle" };
        throw error;
      }
      // An agent that exited before its hello will not do better next time (no python3, an old one).
      const final = (error instanceof AgentStartError && error.exit !== undefined) || this.#starts >= MAX_STARTS;
      this.#state = final ? { kind: "off" } : { kind: "idle" };
      log(() => `${backendId} agent: could not start (${describeStartFailure(error)}); ${final ? "plain execs from now on" : "plain execs for now"}`);
      return undefined;
    }
  }

  #closedError(): CodecallError {
    return new CodecallError("ENVIRONMENT_CLOSED", `This ${this.#options.backendId} environment is closed`);
  }

  #onLost(operations: AgentOperations, link: AgentLink, hello: AgentHello, why: string): void {
    const state = this.#state;
    if (state.kind !== "up" || state.operations !== operations) return; // closed on purpose
    const again = this.#starts < MAX_STARTS;
    this.#state = again ? { kind: "idle" } : { kind: "off" };
    log(() => `${this.#options.backendId} agent: lost (${why}); ${again ? "the next operation starts a new one" : "plain execs from now on"}`);
    void this.#retire(link, hello.pid);
  }

  /** Makes sure a lost or broken agent is gone: EOF first (it ends its commands), then its pid killed. */
  async #retire(link: AgentLink, pid: number | undefined): Promise<void> {
    const exited = await link.close(RETIRE_GRACE_MS);
    if (!exited && pid !== undefined) await this.#options.killPid(pid).catch(() => {});
  }
}

function describeHello(hello: AgentHello): string {
  const reaper = hello.subreaper ? "subreaper" : "no subreaper: orphans are found by process group only";
  return `pid ${hello.pid}, Python ${hello.python}, ${reaper}`;
}

function describeStartFailure(error: unknown): string {
  if (error instanceof AgentStartError && error.exit !== undefined && isCommandNotFound(error.exit.exitCode, error.stderr)) {
    return "python3 is not installed in the environment";
  }
  return errorMessage(error);
}
