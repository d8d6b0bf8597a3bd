/** The text of `codecall --help`. */
export const HELP = `codecall — run a Python script whose tool calls are served by this host.

Usage:
  codecall run FILE|- [options]     run a script (- reads it from stdin)
  codecall repl [options]           run Python cells one after another in one session (state survives)
  codecall tools [options]          list the tools a script can import, with their Python signatures
  codecall stub [options]           print the Python module a script imports its tools from
  codecall mcp serve [options]      serve execute_code to MCP clients (stdio, or --http PORT)
  codecall COMMAND --help           the options of a command
  codecall --help | --version

The script imports tools with \`from codecall import terminal, read_file, ...\`; only what it
prints is the result. Built-in tools: terminal, read_file, write_file, search_files, patch.

Options:
  --backend NAME            where the script runs: local (default), docker, ssh, modal,
                            daytona, singularity (apptainer), or a package/module that exports createEnvironment
  -o, --backend-option K=V  an option of the backend (repeatable; env.NAME=VALUE sets one entry of a map);
                            codecall run --backend NAME --help lists them
  --transport NAME[,NAME]   how tool calls travel: auto (default), uds, stream, file; a list is
                            tried in order (the first that supports the backend and starts)
  --timeout SECONDS         wall-time limit of the script (default 300; 0.001 to 31536000 = 365 days)
  --max-tool-calls N        tool-call budget of the script (default 50)
  --tools MODULE            a JS/TS module exporting extra tool definitions (repeatable)
  --mcp COMMAND|URL         an MCP server whose tools scripts may call: a command line that starts
                            it (stdio) or its Streamable HTTP URL (repeatable; see mcpServers below)
  --allow-tools A,B         only these tools may be called (empty = none)
  --no-builtin-tools        do not offer the built-in tools
  --cwd DIR                 working directory of the script, inside the environment
  --env-passthrough NAME    pass this host variable to the script even if it looks secret (repeatable)
  --interpreter CMD         Python command inside the environment (default python3)
  --config FILE             JSON file with any of these options and mcpServers (flags win);
                            default: codecall.config.json in the working directory, if there is one
  --json                    print the result as JSON instead of streaming the output
  --require-approval A,B    each call of these tools needs approval (repeatable): you are asked
                            on the terminal, [y]es / [n]o / [a]lways for this run
  --approve-all             approve every call that needs approval without asking (without it,
                            such calls are denied when stdin is not a terminal)
  --approval-timeout SECS   longest wait for one answer (default 300); then the call is denied;
                            the script's time limit is paused while it waits
  -v, --verbose             report tool calls, approvals and skipped transports on stderr
  -h, --help                this text, and the options of the backend (--backend NAME --help)

Exit codes: 0 success, 1 error, 124 timeout, 130 interrupted (Ctrl-C), 143 SIGTERM, 129 SIGHUP,
141 stdout closed by its reader (the script is stopped), 2 bad command line (unknown option, bad value, unknown backend or transport, plugin not installed).

Debugging: CODECALL_DEBUG=transport,env,rpc,backend (or *) writes on stderr the transport chosen
and fallbacks, the variable names withheld from the script, tool calls and the commands backends
run. Lines name variables but never show their values, nor tool arguments; known secrets are masked.
`;
