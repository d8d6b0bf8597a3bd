// A local command may close its stdin before the host has written all of its input (EPIPE): that
// is its choice, so it runs on and keeps its result (exec backends, which cannot tell a closed pipe
// from a lost write, end such a command instead; see collectProcess).
import { describe, expect, it } from "vitest";
import { createEnvironment } from "../src/index.js";

describe("local execute with input the command does not read", () => {
  it("lets a command that closed its stdin finish", async () => {
    await using environment = createEnvironment();
    const result = await environment.execute("exec 0<&-; sleep 3; echo finished", { stdin: new Uint8Array(4 * 1024 * 1024) });
    expect(result).toMatchObject({ exitCode: 0, stdout: "finished\n", timedOut: false });
  });
});

describe("a spawned process's stdin after the process exited", () => {
  it("closes at once (Node destroys a dead child's stdin, and ending it would never call back)", async () => {
    await using environment = createEnvironment();
    const process = await environment.spawn("exit 0");
    await process.wait();
    // Node destroys the pipe once the child is gone; give it the turn it takes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Settles, or the test's own time limit fails it.
    await process.stdin.getWriter().close();
  });
});
