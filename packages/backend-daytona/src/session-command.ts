/**
 * The text of one session command: the bridge (bridge.sh) running the command's argv, with the
 * stdin bytes known at start embedded as input lines. The daemon hands the text to the session's
 * shell, so it is shell syntax — unlike `process/execute`, whose naive splitter runs no shell.
 *
 * The embedded lines go through `printf`, a builtin of the session's shell: they never appear in
 * any process's argv, so the command's env (in core's header, the first stdin bytes) stays out of
 * `ps`. The session's own input pipe moves to fd 0 of the bridge for the lines sent later.
 */
import { shellQuote } from "@codecall/core/backend-kit";
import pythonBridge from "./bridge.py?raw";
import bridgeScript from "./bridge.sh?raw";

/** Raw bytes per input line: 64 KiB of base64, a size every shell's `read` takes in one go. */
const BYTES_PER_LINE = 48 * 1024;

/** The line that closes the command's stdin. */
export const END_OF_INPUT = ">.";

/** `bytes` as input lines for the bridge (`>` + base64 each). */
export function inputLines(bytes: Uint8Array): string[] {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += BYTES_PER_LINE) {
    const piece = bytes.subarray(offset, offset + BYTES_PER_LINE);
    lines.push(`>${Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString("base64")}`);
  }
  return lines;
}

/**
 * The session command that runs `argv` with `stdin` as its first input (and all of it when
 * `stdinClosed`). A `streaming` command's bridge is the python3 one where the sandbox has python3:
 * it moves output and input without starting processes, which a long-lived command gains from
 * with every write; a command run to completion keeps the sh bridge, which starts sooner.
 */
export function sessionCommand(argv: readonly string[], stdin: Uint8Array, stdinClosed: boolean, streaming: boolean): string {
  const lines = [...inputLines(stdin), ...(stdinClosed ? [END_OF_INPUT] : [])];
  const feed = lines.length === 0 ? "true" : `printf '%s\\n' ${lines.map(shellQuote).join(" ")}`;
  const bridge = ["sh", "-c", bridgeScript, "codecall-bridge", streaming ? pythonBridge : "", ...argv].map(shellQuote).join(" ");
  return `{ ${feed} | ${bridge} 3<&0 0<&4 4<&-; } 4<&0`;
}
