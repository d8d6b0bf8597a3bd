/**
 * A command's start and end as debug lines show them, the same for every backend: the command
 * text and, of its options, the working directory, the names of the variables it is given (never
 * their values: the run token and passed-through secrets travel there) and its timeout.
 */
import type { CommandOptions, ProcessExit } from "../environment.js";

/** Commands of more lines show their first and last lines only: the body of an inline program or a heredoc says little in a log. */
const MAX_LINES = 3;

/** `python3 /tmp/x/script.py [cwd /work; only env PATH HOME ...; timeout 300000 ms]`, on one line. */
export function describeCommand(command: string, options: CommandOptions = {}): string {
  const lines = command.split("\n");
  const text = lines.length <= MAX_LINES ? lines.join("\\n") : `${lines[0]}\\n… ${lines.length - 2} more lines …\\n${lines.at(-1)}`;
  const notes: string[] = [];
  if (options.cwd !== undefined) notes.push(`cwd ${options.cwd}`);
  const names = Object.keys(options.env ?? {}).join(" ");
  if (options.clearEnv) notes.push(`only env ${names || "(none)"}`);
  else if (names !== "") notes.push(`env + ${names}`);
  if (options.timeoutMs !== undefined) notes.push(`timeout ${options.timeoutMs} ms`);
  return notes.length === 0 ? text : `${text} [${notes.join("; ")}]`;
}

/** `exited 0 after 12 ms`, `exited 137 (SIGKILL) after 3001 ms`; `startedAt` is a `performance.now()` reading. */
export function describeExit(exit: ProcessExit, startedAt: number): string {
  return `exited ${exit.exitCode}${exit.signal ? ` (${exit.signal})` : ""} after ${Math.round(performance.now() - startedAt)} ms`;
}
