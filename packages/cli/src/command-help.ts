/** The help of the commands besides `run` (whose help is `HELP` and the backend's options). */

const SHARED = `The options that choose the tools are those of codecall run: --tools MODULE, --mcp COMMAND|URL,
--allow-tools A,B, --no-builtin-tools and --config FILE (default: codecall.config.json here).`;

export const TOOLS_HELP = `codecall tools — list the tools a script can import, with their Python signatures.

Usage:
  codecall tools [--tools MODULE] [--mcp COMMAND|URL] [--allow-tools A,B] [--no-builtin-tools] [--json]

${SHARED}
  --json                    print the tools' definitions (name, description, parameters, returns) as JSON
`;

export const STUB_HELP = `codecall stub — print the Python module a script imports its tools from (\`from codecall import ...\`).

Usage:
  codecall stub [--tools MODULE] [--mcp COMMAND|URL] [--allow-tools A,B] [--no-builtin-tools]

${SHARED}
`;

export const MCP_HELP = `codecall mcp — codecall and the Model Context Protocol.

Usage:
  codecall mcp serve [options]      serve execute_code to MCP clients (codecall mcp serve --help)

To call an MCP server's tools from a script, give it to codecall run: --mcp COMMAND|URL, or an
entry of "mcpServers" in the config file.
`;

export const MCP_SERVE_HELP = `codecall mcp serve — serve execute_code to MCP clients (a desktop app, an IDE, an agent).

Usage:
  codecall mcp serve [--http PORT [--host ADDRESS]] [run options]

Over stdio by default: the MCP client starts this command and speaks on its stdin and stdout
(nothing else is written there; logs go to stderr). With --http PORT it listens on Streamable
HTTP at http://127.0.0.1:PORT/mcp instead (0 picks a free port; the URL is printed on stderr).

Options:
  --http PORT               serve Streamable HTTP on this port instead of stdio
  --host ADDRESS            address to listen on with --http (default 127.0.0.1; requests must
                            then name a loopback host, which defeats DNS rebinding)
  --backend NAME, -o K=V, --transport, --timeout, --max-tool-calls, --tools, --mcp, --allow-tools,
  --no-builtin-tools, --cwd, --env-passthrough, --interpreter, --config
                            as for codecall run: where scripts run and the tools they may call.
                            One environment serves every call and is closed when the server ends.
  --require-approval A,B    each call of these tools needs approval (repeatable): the MCP client is
                            asked (elicitation: approve / approve for the run / deny with a reason);
                            a client that cannot be asked gets them denied, as the tool description says
  --approve-all             approve every call that needs approval without asking
  --approval-timeout SECS   longest wait for one answer (default 300); then the call is denied
  --session                 keep a Python session per client connection (per MCP session over
                            HTTP): variables and imports survive between calls, the tool takes
                            reset: true, and the session ends with the connection
  --session-idle SECONDS    end a session after this long without a call (default 900)
  --max-sessions N          sessions at once (default 16); the one idle the longest ends first
  -v, --verbose             log each tool call and approval decision on stderr

Client configuration (Claude Desktop, IDEs: the common "mcpServers" JSON):
  { "mcpServers": { "codecall": { "command": "npx", "args": ["-y", "codecall", "mcp", "serve"] } } }

Each call is logged on stderr (status, tool calls, duration). A client's cancellation interrupts
the script; the end of stdin (or SIGINT/SIGTERM) interrupts every run and ends the server.
`;

export const REPL_COMMANDS_HELP = `Commands (at the start of a line, outside a cell):
  :reset                    end the session: the next cell starts fresh
  :quit                     leave (also :exit, :q, or the end of input)
  :help                     this text
`;

export const REPL_HELP = `codecall repl — run Python cells one after another in one session: imports, variables,
functions and open files survive from cell to cell. The cells can call the tools, as scripts of
codecall run can (\`from codecall import ...\`).

Usage:
  codecall repl [run options]
  printf 'x = 41\\nprint(x + 1)\\n' | codecall repl --backend docker

Input: a line is a cell on its own, unless it leaves a bracket or a triple-quoted string open
or ends with a backslash (the cell then goes on until they close), or it starts a compound
statement (a line ending with ":", or a decorator): that cell goes on until a blank line. The end
of input runs the cell still open. On a terminal the prompt is >>> (... inside a cell); with
piped input nothing but the cells' output is written to stdout.

\${REPL_COMMANDS_HELP}
Each cell's output is streamed as it comes; a cell that fails, times out or is interrupted gets
one line on stderr, and so does a lost state (a kernel that did not stop when interrupted, or
died). --timeout and --max-tool-calls apply to each cell. Ctrl-C interrupts the running cell and
keeps the session; at the prompt it drops the half-typed cell, and twice in a row quits.
--json prints each cell's result as one JSON line instead of streaming its output.

Options: those of codecall run (codecall --help): --backend, -o, --transport, --timeout,
--max-tool-calls, --tools, --mcp, --allow-tools, --no-builtin-tools, --cwd, --env-passthrough,
--interpreter, --config, --json, -v. Calls that need approval are denied (stdin carries the cells)
unless --approve-all.

Exit codes: 0 at the end of input or :quit (whatever the cells did), 130/143/129 when stopped by
a signal, 141 when stdout was closed, 2 for a bad command line.
`;
