/**
 * Python that prints the fake sandbox a process runs in. The fake tags each exec'd process with
 * FAKE_MODAL_SANDBOX=<id> in its environment; a script's own env is cleared by codecall, so the
 * nearest ancestor carrying the tag names the sandbox. Run it in a script (`exec(SOURCE)`) and in a
 * tool's command (`python3 -c SOURCE`) to show both run in the same sandbox.
 */
export const SANDBOX_OF_PROCESS = `
pid = "self"
while pid not in ("0", "1"):
    tags = [e for e in open(f"/proc/{pid}/environ", "rb").read().split(b"\\0") if e.startswith(b"FAKE_MODAL_SANDBOX=")]
    if tags:
        print(tags[0].decode().split("=")[1])
        break
    pid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
`;

/** A script that prints the sandbox it runs in, then the sandbox its `terminal` tool ran in. */
export const WHERE_SCRIPT_AND_TOOL_RUN = `
import shlex
from codecall import terminal
source = ${JSON.stringify(SANDBOX_OF_PROCESS)}
exec(source)
print(terminal("python3 -c " + shlex.quote(source))["output"].strip())
`;
