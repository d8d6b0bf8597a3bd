/**
 * Notices an agent that stopped answering while the host waits on it. Every wait on the agent — a
 * request's reply, a command's exit, a stream's next bytes — ends when the agent says so, so an
 * agent that is frozen (stopped, wedged in a system call) or whose channel stopped carrying its
 * frames while staying open (a backend's log stream gone quiet, input calls that land nowhere)
 * would leave the host waiting forever: before a command's reply no timeout is even armed.
 *
 * So while the host waits on the agent and nothing has come from it for `silenceMs`, it is pinged;
 * a ping it does not answer within `answerMs` gives it up as lost, which fails everything waiting
 * on it with the reason. A busy agent is not pinged (its frames keep coming), nor an idle one that
 * nothing waits on; one that answers keeps its commands, however long they take.
 */
import { delay } from "../timers/delay.js";

/** How the host watches a running agent. */
export interface AgentWatchOptions {
  /** Silence from the agent, while the host waits on it, after which it is pinged (default 15 s). */
  silenceMs?: number;
  /** How long a ping may go unanswered before the agent is given up (default 30 s). */
  answerMs?: number;
}

/** What the watchdog needs of the link. */
export interface WatchedLink {
  /** True while something waits on the agent (a reply, an event, a stream). */
  waiting(): boolean;
  /** Sends a ping; settles when the agent answers it (or the link is lost). */
  ping(): Promise<unknown>;
  /** Gives the agent up as lost. */
  abandon(reason: string): void;
}

const DEFAULT_SILENCE_MS = 15_000;
const DEFAULT_ANSWER_MS = 30_000;

export class AgentWatchdog {
  readonly #link: WatchedLink;
  readonly #silenceMs: number;
  readonly #answerMs: number;
  #lastHeard = performance.now();
  #timer: ReturnType<typeof setInterval> | undefined;
  #pinging = false;
  #stopped = false;

  constructor(link: WatchedLink, options: AgentWatchOptions = {}) {
    this.#link = link;
    this.#silenceMs = options.silenceMs ?? DEFAULT_SILENCE_MS;
    this.#answerMs = options.answerMs ?? DEFAULT_ANSWER_MS;
  }

  /** Starts watching (once the agent said hello). */
  start(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#lastHeard = performance.now();
    // Checked a few times per silence, so a silence is noticed at most a quarter of it late.
    this.#timer = setInterval(() => this.#check(), Math.max(1, this.#silenceMs / 4));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Something came from the agent. */
  heard(): void {
    this.#lastHeard = performance.now();
  }

  /** The link is gone: no more pings. Idempotent. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    if (this.#stopped || this.#pinging || !this.#link.waiting()) return;
    if (performance.now() - this.#lastHeard < this.#silenceMs) return;
    this.#pinging = true;
    let answered = false;
    const settled = () => {
      answered = true;
      this.#pinging = false;
    };
    this.#link.ping().then(settled, settled);
    void this.#judge(() => answered, performance.now());
  }

  /**
   * Gives the agent up once a ping went unanswered and nothing at all came from it for `answerMs`.
   * A busy agent works through what came before the ping first, and a long burst (hundreds of
   * commands started at once on a loaded machine) can take longer than `answerMs`: its frames
   * meanwhile show it alive, so each of them moves the deadline.
   */
  async #judge(answered: () => boolean, since: number): Promise<void> {
    for (let from = since; ; from = this.#lastHeard) {
      await delay(Math.max(0, from + this.#answerMs - performance.now()), { unref: true });
      // One more turn of the event loop first: a host that was itself blocked past the deadline
      // reads what is already waiting for it before it judges.
      await delay(0, { unref: true });
      if (answered() || this.#stopped) return;
      if (this.#lastHeard <= from) break;
    }
    this.#link.abandon(
      `the agent stopped answering: nothing came from it for ${seconds(this.#silenceMs)} while the host waited on it, nor for ${seconds(this.#answerMs)} after a ping`,
    );
  }
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
