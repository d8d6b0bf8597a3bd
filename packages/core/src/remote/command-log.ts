/**
 * The backend debug lines of an environment's commands: each one numbered when it starts, with its
 * text and options, and its end matched to it by the number — whichever way it runs (a plain exec
 * or the environment agent), so the numbering of one environment is one sequence.
 */
import { debugLogger } from "../debug/debug-log.js";
import { describeCommand, describeExit } from "../debug/describe-command.js";
import type { CommandOptions, ProcessExit } from "../environment.js";
import { errorMessage } from "../errors.js";

const log = debugLogger("backend");

/** One command's later lines. */
export interface LoggedCommand {
  /** Logs `line` under the command's name. */
  note(line: () => string): void;
  /** Logs how the command ended once `exit` settles. */
  track(exit: Promise<ProcessExit>): void;
}

export class CommandLog {
  readonly #backendId: string;
  #launched = 0;

  constructor(backendId: string) {
    this.#backendId = backendId;
  }

  /** Logs a command's start; `via` names the way it runs when that is not a plain exec ("agent"). */
  start(command: string, options: CommandOptions, via?: string): LoggedCommand {
    const number = (this.#launched += 1);
    const name = `${this.#backendId}${via ? ` ${via}` : ""} command ${number}`;
    log(() => `${name}: ${describeCommand(command, options)}`);
    const started = performance.now();
    return {
      note: (line) => log(() => `${name}: ${line()}`),
      track: (exit) =>
        void exit.then(
          (ended) => log(() => `${name}: ${describeExit(ended, started)}`),
          (error: unknown) => log(() => `${name}: ${errorMessage(error)}`),
        ),
    };
  }
}
