/**
 * What `codecall run` shows while a run goes on, from the run's events: the script's output on
 * stdout and stderr as text (unless `--json`; see terminal-output.ts), with `-v` one line per tool
 * call and per approval decision, and — always — a note the first time a tool's call is denied
 * because nobody could approve it.
 * Lines are bounded whatever the arguments or errors hold, and host secrets in them are masked as
 * in the script's output: the arguments come from the script, which may have read one.
 */
import { describeValue, redactSecrets, type RunEvent } from "@codecall/core";
import type { TerminalOutput } from "./terminal-output.js";

export interface EventPrinterOptions {
  /** Where the script's output and codecall's lines go. */
  terminal: TerminalOutput;
  /** Leave the output to the JSON result. */
  json: boolean;
  verbose: boolean;
  /** Masked in the progress lines. */
  knownSecrets: readonly string[];
  /** Why nobody can approve calls in this run, when nobody can (see `approvalModeFor`). */
  deniedBecause?: string | undefined;
}

/**
 * The `onEvent` of a CLI run. For output it returns the terminal's hold (see
 * `TerminalOutput.script`): the run waits for a slow reader rather than buffering for it.
 */
export function createEventPrinter(options: EventPrinterOptions): (event: RunEvent) => Promise<void> | undefined {
  const noted = new Set<string>();
  const line = (text: string) => options.terminal.line(redactSecrets(text, { knownSecrets: options.knownSecrets }));
  return (event) => {
    if (event.type === "stdout" || event.type === "stderr") {
      return options.json ? undefined : options.terminal.script(event.type, event.chunk);
    }
    if (event.type === "approval-decided" && event.decidedBy === "no-handler" && !noted.has(event.tool)) {
      noted.add(event.tool);
      line(
        `codecall: ${event.tool} needs approval; denied because ${options.deniedBecause ?? "nobody can approve"} (--approve-all approves every call)`,
      );
    }
    if (!options.verbose) return undefined;
    if (event.type === "tool-call-start") line(`codecall: → ${event.tool} ${describeValue(event.arguments, { maxLength: 120 })}`);
    else if (event.type === "tool-call-end") {
      const outcome = event.ok ? "ok" : `${event.outcome}: ${clip(event.error ?? "", 200)}`;
      line(`codecall: ← ${event.tool} ${outcome} (${seconds(event.durationMs)})`);
    } else if (event.type === "approval-decided") {
      const verdict =
        event.decision === "approve-for-run"
          ? "approved for the rest of the run"
          : event.approved
            ? "approved"
            : `denied: ${clip(event.reason ?? "", 200)}`;
      line(`codecall: approval of ${event.tool}: ${verdict} (${event.decidedBy}, after ${seconds(event.waitMs)})`);
    }
  };
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}
