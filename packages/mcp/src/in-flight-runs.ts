/**
 * The runs a server has under way, so that closing it can wait for them: a run interrupted by the
 * close still has to end its script's process tree and remove its run dir before the process exits.
 */
import type { CodeTool } from "@codecall/core";

export class InFlightRuns {
  readonly #runs = new Set<Promise<unknown>>();

  /** `tool`, with every run it starts counted until it ends. */
  track(tool: CodeTool): CodeTool {
    return {
      ...tool,
      execute: (args, context) => {
        const run = tool.execute(args, context);
        this.#runs.add(run);
        const forget = () => this.#runs.delete(run);
        run.then(forget, forget);
        return run;
      },
    };
  }

  /** Resolves once every run started so far has ended. */
  async settled(): Promise<void> {
    while (this.#runs.size > 0) await Promise.allSettled([...this.#runs]);
  }
}
