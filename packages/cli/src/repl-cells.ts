/**
 * How `codecall repl` cuts typed (or piped) lines into cells, close to Python's own REPL:
 *
 * - a line that opens nothing is a cell on its own (`x = 1`, `print(x)`);
 * - a line that leaves a bracket or a triple-quoted string open, or ends with `\`, goes on with the
 *   next lines until they close (blank lines inside are kept); the cell ends there;
 * - a compound statement — a line ending with `:` (before any comment), or a decorator (`@`) —
 *   goes on until a blank line (one outside any open bracket or string);
 * - outside a cell, a line starting with `:` is a command (`:reset`, `:quit`, `:help`);
 * - the end of input runs the open cell, if any;
 * - a cell over the size limit is refused as a whole: its lines are read on to its end (so that
 *   they do not run as cells of their own) but not kept.
 *
 * Each line is read once, as it comes: what is open (brackets, a string) is kept between lines, so
 * a long pasted cell costs time in its length, not in its square.
 *
 * Only brackets, strings and comments are read, not Python's grammar: the kernel reports
 * syntax errors.
 */

/** The longest cell kept, in characters: a cell's lines are held until it ends, so this bounds them. */
export const MAX_CELL_CHARS = 8 * 1024 * 1024;

/** What a line completed: nothing yet (a block goes on), a cell to run, a cell refused, or a command. */
export type ReplInput =
  { kind: "more" } | { kind: "cell"; code: string } | { kind: "refused"; reason: string } | { kind: "command"; name: string; argument: string };

export class CellReader {
  readonly #maxChars: number;
  #lines: string[] = [];
  #chars = 0;
  /** Lines were read into the open cell (kept, or only read once it is over the limit). */
  #open = false;
  #overLimit = false;
  /** The open cell holds a compound statement, which only a blank line ends. */
  #compound = false;
  #scanner = new Scanner();

  /** `maxChars`: the longest cell kept (default {@link MAX_CELL_CHARS}); a longer one is refused. */
  constructor(maxChars = MAX_CELL_CHARS) {
    this.#maxChars = maxChars;
  }

  /** Whether a block is open (the prompt then reads `... `). */
  get open(): boolean {
    return this.#open;
  }

  /** Takes one line (without its newline). */
  push(line: string): ReplInput {
    if (!this.#open) {
      if (line.trim() === "") return { kind: "more" };
      const command = /^:(\S+)\s*(.*)$/.exec(line.trim());
      if (command) return { kind: "command", name: command[1]!, argument: command[2]! };
    }
    if (this.#open && line.trim() === "" && this.#scanner.closed) return this.#take();
    const first = !this.#open;
    const code = this.#scanner.line(line, first).trimEnd();
    this.#open = true;
    this.#keep(line);
    if (this.#scanner.closed && (code.endsWith(":") || (first && line.trimStart().startsWith("@")))) this.#compound = true;
    return this.#compound || !this.#scanner.closed || code.endsWith("\\") ? { kind: "more" } : this.#take();
  }

  /** The open cell at the end of input (a refusal when it was over the limit); undefined when none is open. */
  end(): ReplInput | undefined {
    return this.#open ? this.#take() : undefined;
  }

  /** Drops the open cell (Ctrl-C while typing one). */
  clear(): void {
    this.#lines = [];
    this.#chars = 0;
    this.#open = false;
    this.#overLimit = false;
    this.#compound = false;
    this.#scanner = new Scanner();
  }

  #keep(line: string): void {
    if (this.#overLimit) return;
    this.#chars += line.length + 1;
    if (this.#chars <= this.#maxChars) {
      this.#lines.push(line);
      return;
    }
    this.#overLimit = true;
    this.#lines = [];
  }

  #take(): ReplInput {
    const input: ReplInput = this.#overLimit
      ? { kind: "refused", reason: `the cell is over ${this.#maxChars} characters and was not run (codecall run takes a script of any size)` }
      : { kind: "cell", code: this.#lines.join("\n") };
    this.clear();
    return input;
  }
}

/** Reads source a line at a time for open brackets and strings, skipping comments. */
class Scanner {
  #depth = 0;
  /** `'`, `"`, `'''` or `"""` while inside a string. */
  #quote: string | undefined;
  /** The last line ended with a backslash inside a string: its newline belongs to the string. */
  #escapedNewline = false;

  /** No bracket and no string is left open. */
  get closed(): boolean {
    return this.#depth === 0 && this.#quote === undefined;
  }

  /** Reads the next line (the `first` of its cell, or not); returns it without its comment. */
  line(text: string, first: boolean): string {
    // A single-quoted string cannot span lines, unless the newline is escaped.
    if (!first && this.#quote?.length === 1 && !this.#escapedNewline) this.#quote = undefined;
    this.#escapedNewline = false;
    let lineCode = "";
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index]!;
      if (this.#quote !== undefined) {
        lineCode += char;
        if (char === "\\") {
          if (index + 1 === text.length) this.#escapedNewline = true;
          lineCode += text[index + 1] ?? "";
          index += 1;
        } else if (text.startsWith(this.#quote, index)) {
          lineCode += this.#quote.slice(1);
          index += this.#quote.length - 1;
          this.#quote = undefined;
        }
        continue;
      }
      if (char === "#") break;
      lineCode += char;
      if (char === "'" || char === '"') {
        this.#quote = text.startsWith(char.repeat(3), index) ? char.repeat(3) : char;
        lineCode += this.#quote.slice(1);
        index += this.#quote.length - 1;
      } else if ("([{".includes(char)) this.#depth += 1;
      else if (")]}".includes(char)) this.#depth = Math.max(0, this.#depth - 1);
    }
    return lineCode;
  }
}
