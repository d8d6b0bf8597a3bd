/**
 * A toolbox session as the daemon keeps one: a long-lived shell in a process group of its own,
 * to which every command is written as a wrapper script. The wrapper behaves like the daemon's
 * (our own text): the command, sourced from a file, runs in the foreground — so a session runs
 * one command at a time — with stdin from a per-command FIFO (held open by a sleeper for async
 * commands, at EOF for sync ones) and stdout/stderr through two FIFOs whose lines are labelled
 * (\x01\x01\x01 / \x02\x02\x02, a newline added to a last partial line) into one log file; the
 * exit code is written only after both labellers drained.
 *
 * The daemon labels with a shell `read` loop, which reads a pipe a byte at a time; the fake
 * labels with awk (the same lines, much faster), so large outputs do not take minutes here. How
 * fast the real daemon moves a large output was not measured. The writes are the daemon's: its
 * `printf` builtin writes a labelled line through a 4 KiB stdio buffer, so a line of up to 4 KiB
 * is one write and a longer one several 4 KiB writes, between which the other stream's labeller
 * may write. (awk's own printf is not that: mawk, unbuffered, writes the label a byte at a time,
 * and two labellers then interleave inside lines, which the daemon never does to short lines.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface SessionCommand {
  readonly id: string;
  readonly command: string;
  readonly suppressInputEcho: boolean;
  readonly dir: string;
  readonly log: string;
  readonly exitFile: string;
  readonly input: string;
  exitCode?: number;
}

const q = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** mawk (Debian's default awk) buffers its input unless told to be interactive; gawk does not. */
const awk = existsSync("/usr/bin/mawk") ? "mawk -W interactive" : "awk";

/**
 * A labeller: each line, label and newline added, in 4 KiB writes (one `printf "%s"` is one
 * write in both awks, with fflush for gawk). LC_ALL=C makes `length` and `substr` count bytes.
 */
const labeller = (label: string) =>
  `LC_ALL=C ${awk} '{ s = "${label}" $0 "\\n"; for (i = 1; i <= length(s); i += 4096) { printf "%s", substr(s, i, 4096); fflush() } }'`;

export class SessionShell {
  readonly id: string;
  readonly commands = new Map<string, SessionCommand>();
  readonly #dir: string;
  readonly #shell: ChildProcess;
  #count = 0;

  constructor(id: string, dir: string, cwd: string, env: NodeJS.ProcessEnv, shell: string) {
    this.id = id;
    this.#dir = dir;
    mkdirSync(dir, { recursive: true });
    this.#shell = spawn(shell, [], { cwd, env, detached: true, stdio: ["pipe", "ignore", "ignore"] });
    this.#shell.stdin!.on("error", () => {});
  }

  get pid(): number | undefined {
    return this.#shell.pid;
  }

  get alive(): boolean {
    return this.#shell.exitCode === null && this.#shell.signalCode === null;
  }

  /** Writes the command's wrapper to the shell; it runs after the commands before it. */
  run(command: string, async: boolean, suppressInputEcho: boolean): SessionCommand {
    const id = `cmd-${(this.#count += 1)}-${Math.random().toString(36).slice(2, 8)}`;
    const dir = path.join(this.#dir, id);
    mkdirSync(dir);
    const entry: SessionCommand = {
      id,
      command,
      suppressInputEcho,
      dir,
      log: path.join(dir, "output.log"),
      exitFile: path.join(dir, "exit_code"),
      input: path.join(dir, "input.pipe"),
    };
    writeFileSync(entry.log, "");
    writeFileSync(path.join(dir, "cmd.sh"), command);
    const holder = async ? "while :; do sleep 3600; done" : "cat /dev/null";
    const wrapper = [
      "{",
      `  log=${q(entry.log)}; sp=${q(`${dir}/stdout.pipe`)}; ep=${q(`${dir}/stderr.pipe`)}; ip=${q(entry.input)}`,
      '  rm -f "$sp" "$ep" "$ip" && mkfifo "$sp" "$ep" "$ip" || exit 1',
      `  ${labeller("\\001\\001\\001")} < "$sp" >> "$log" & r1=$!`,
      `  ${labeller("\\002\\002\\002")} < "$ep" >> "$log" & r2=$!`,
      `  ${holder} > "$ip" & hp=$!`,
      `  { . ${q(`${dir}/cmd.sh`)}; } < "$ip" > "$sp" 2> "$ep"`,
      "  ec=$?",
      '  kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null',
      '  wait "$r1" "$r2"',
      `  echo "$ec" >> ${q(entry.exitFile)}`,
      '  rm -f "$sp" "$ep" "$ip"',
      "}",
      "",
    ].join("\n");
    this.commands.set(id, entry);
    this.#shell.stdin!.write(wrapper);
    return entry;
  }

  /** Ends the shell's whole process group (what the daemon does on delete). */
  kill(): void {
    if (this.#shell.pid !== undefined) {
      try {
        process.kill(-this.#shell.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}
