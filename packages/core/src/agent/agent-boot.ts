/**
 * How the agent starts: one exec of `python3 -I -S -B -c <loader> codecall-agent` through the
 * backend (a shell in front, so a missing python3 is the shell's "not found", the same on every
 * backend). Everything else comes down its stdin ahead of the first frame — nothing is written to
 * the environment's disk: the bootstrap (`python/agent_boot.py`), then the agent's modules, which
 * the bootstrap reads. `-I -S`: no site packages or user paths to import, which is most of a start;
 * `-B`: no bytecode files left behind. The last argument names the agent in `ps`.
 */
import { concatBytes } from "../files/concat-bytes.js";
import { shellQuote } from "../text/shell-quote.js";
import type { ExecRequest } from "../remote/remote-executor.js";
import launcher from "../guest/python/launcher.py?raw";
import boot from "./python/agent_boot.py?raw";
import agentMain from "./python/agent.py?raw";
import agentCommands from "./python/agent_commands.py?raw";
import agentFiles from "./python/agent_files.py?raw";
import agentLoop from "./python/agent_loop.py?raw";
import agentShepherd from "./python/agent_shepherd.py?raw";
import agentSockets from "./python/agent_sockets.py?raw";
import agentStreams from "./python/agent_streams.py?raw";
import agentTree from "./python/agent_tree.py?raw";
import agentWire from "./python/agent_wire.py?raw";

/**
 * The agent's modules in the order they import each other; the last one's main() runs. The
 * script launcher comes along as a module: shepherds walk and end process trees with its code.
 */
const MODULES: readonly (readonly [string, string])[] = [
  ["launcher", launcher],
  ["agent_wire", agentWire],
  ["agent_loop", agentLoop],
  ["agent_tree", agentTree],
  ["agent_streams", agentStreams],
  ["agent_shepherd", agentShepherd],
  ["agent_commands", agentCommands],
  ["agent_files", agentFiles],
  ["agent_sockets", agentSockets],
  ["agent", agentMain],
];

/**
 * What `-c` runs: reads a length line, then that many bytes (the bootstrap), with os.read so that
 * nothing past them is consumed, and runs them. Kept to a few lines: it is what `ps` shows.
 */
const LOADER = [
  "import os",
  "def r(n):",
  "    b = os.read(0, n)",
  "    if not b: raise SystemExit('codecall agent: no source on stdin')",
  "    return b",
  "h = b''",
  "while h[-1:] != b'\\n': h += r(1)",
  "s = b''",
  "while len(s) < int(h): s += r(int(h) - len(s))",
  "exec(s)",
].join("\n");

/** The last argument of the agent's command line: how it is told apart in a process list. */
export const AGENT_PROCESS_NAME = "codecall-agent";

/** The exec that starts the agent: a streaming one (its stdin is written for as long as it runs). */
export function agentExec(): ExecRequest {
  const argv = ["sh", "-c", 'exec python3 -I -S -B -c "$0" "$1"', LOADER, AGENT_PROCESS_NAME];
  return { argv, command: argv.map(shellQuote).join(" "), streaming: true };
}

/** What goes first on the agent's stdin: the bootstrap, then the modules it reads. */
export function agentSource(): Uint8Array {
  const encoder = new TextEncoder();
  const bootstrap = encoder.encode(boot);
  const parts: Uint8Array[] = [encoder.encode(`${bootstrap.length}\n`), bootstrap, encoder.encode(`${MODULES.length}\n`)];
  for (const [name, source] of MODULES) {
    const bytes = encoder.encode(source);
    parts.push(encoder.encode(`${name} ${bytes.length}\n`), bytes);
  }
  return concatBytes(parts);
}
