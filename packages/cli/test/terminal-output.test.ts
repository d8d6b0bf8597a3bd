// What a script prints reaches the terminal as text, never as terminal commands: escape sequences
// (colours, cursor moves, line erases, OSC 52 clipboard writes, a terminal reset) are removed as
// the result's `output` has them removed, also when one is split across writes. And codecall's
// own lines (progress, the final status) always start a line of their own, so a script's
// unfinished line cannot make them read as its text, nor can it move back and rewrite them.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

// eslint-disable-next-line no-control-regex -- ESC and the C1 controls are what must not get through
const TERMINAL_CONTROL = /[\u001b\u0080-\u009f]/;

const SCRIPT = String.raw`import sys
from codecall import read_file
sys.stdout.write("\x1b[31mRED\x1b[0m \x1b]52;c;aGk=\x07clip \x1b[1A\x1b[2Kup\n")
sys.stdout.flush()
sys.stdout.write("split \x1b[3")
sys.stdout.flush()
sys.stdout.write("1mgreen\x9b2J\n")
sys.stdout.flush()
sys.stderr.write("partial")
sys.stderr.flush()
read_file("notes.txt")
sys.stderr.write("\x1b\nc tail")
sys.stderr.flush()
sys.exit(3)
`;

describe("codecall run on a terminal shared with the script", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-terminal-"));
    await writeFile(path.join(dir, "notes.txt"), "n\n");
    await writeFile(path.join(dir, "script.py"), SCRIPT);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("passes the script's text without its escape sequences, and starts codecall's lines on a line of their own", async () => {
    const result = await runCli(["run", "script.py", "-v", "--allow-tools", "read_file"], { cwd: dir, deadlineMs: 120_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("RED clip up\nsplit green\n");
    expect(result.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    // Each of codecall's lines starts a line, whichever comes first of the script's unfinished
    // "partial" and the tool call's line (a pipe and a socket keep no order between them).
    expect(result.stderr).toContain("codecall: → read_file ");
    expect(result.stderr).not.toMatch(/[^\n]codecall: /);
    expect(result.stderr).toMatch(/\nc tail\ncodecall: error — Script exited with code 3/);
  }, 150_000);
});
