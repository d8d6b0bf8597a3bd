/**
 * How `codecall repl` cuts typed (or piped) lines into cells, close to Python's own REPL:
 *
 * - a line that opens nothing is a cell on its own (`x = 1`, `print(x)`);
 * - a line that leaves a bracket or a triple-quoted string open, or ends with `\`, goes on with the
 *   next lines until they close (blank lines inside are kept); the cell ends there;
 * - a compound statement — a line ending with `:` (before any comment), or a decorator (`@`) —
 *   goes on until a blank line (one outside any open bracket or string);
 * - outside a cell, a line starting with `:` is a command (`:reset`, `:quit`, `:help`);
 * - the end of input runs the open cell, if any.
 *
 * Only brackets, strings and comments are read, not Python's grammar: the kernel reports
 * syntax errors.
 */

/** What a line completed: nothing yet (a block goes on), a cell to run, or a command. */
export type ReplInput = { kind: "more" } | { kind: "cell"; code: string } | { kind: "command"; name: string; argument: string };

export class CellReader {
  #lines: string[] = [];
  /** The open cell holds a compound statement, which only a blank line ends. */
  #compound = false;

  /** Whether a block is open (the prompt then reads `... `). */
  get open(): boolean {
    return this.#lines.length > 0;
  }

  /** Takes one line (without its newline). */
  push(line: string): ReplInput {
    if (this.#lines.length === 0) {
      if (line.trim() === "") return { kind: "more" };
      const command = /^:(\S+)\s*(.*)$/.exec(line.trim());
      if (command) return { kind: "command", name: command[1]!, argument: command[2]! };
    }
    if (this.#lines.length > 0 && line.trim() === "" && scan(this.#lines.join("\n")).closed) return this.#take();
    this.#lines.push(line);
    const state = scan(this.#lines.join("\n"));
    const code = state.lastLineCode.trimEnd();
    if (state.closed && (code.endsWith(":") || (this.#lines.length === 1 && line.trimStart().startsWith("@")))) this.#compound = true;
    return this.#compound || !state.closed || code.endsWith("\\") ? { kind: "more" } : this.#take();
  }

  /** The open cell at the end of input (undefined when none is open). */
  end(): string | undefined {
    return this.#lines.length === 0 ? undefined : (this.#take() as { code: string }).code;
  }

  /** Drops the open cell (Ctrl-C while typing one). */
  clear(): void {
    this.#lines = [];
    this.#compound = false;
  }

  #take(): ReplInput {
    const code = this.#lines.join("\n");
    this.clear();
    return { kind: "cell", code };
  }
}

interface ScanState {
  /** No bracket and no string is left open. */
  closed: boolean;
  /** The last line without its comment. */
  lastLineCode: string;
}

/** Reads `source` for open brackets and strings, skipping comments. */
function scan(source: string): ScanState {
  let depth = 0;
  let quote: string | undefined; // ', ", ''' or """ while inside a string
  let lineCode = "";
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === "\n") {
      lineCode = "";
      // A single-quoted string cannot span lines (without a backslash, which is skipped below).
      if (quote?.length === 1) quote = undefined;
      continue;
    }
    if (quote !== undefined) {
      lineCode += char;
      if (char === "\\") {
        lineCode += source[index + 1] ?? "";
        index += 1;
      } else if (source.startsWith(quote, index)) {
        lineCode += quote.slice(1);
        index += quote.length - 1;
        quote = undefined;
      }
      continue;
    }
    if (char === "#") {
      const end = source.indexOf("\n", index);
      index = (end === -1 ? source.length : end) - 1;
      continue;
    }
    lineCode += char;
    if (char === "'" || char === '"') {
      quote = source.startsWith(char.repeat(3), index) ? char.repeat(3) : char;
      lineCode += quote.slice(1);
      index += quote.length - 1;
    } else if ("([{".includes(char)) depth += 1;
    else if (")]}".includes(char)) depth = Math.max(0, depth - 1);
  }
  return { closed: depth === 0 && quote === undefined, lastLineCode: lineCode };
}
