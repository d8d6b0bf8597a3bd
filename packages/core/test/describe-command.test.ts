import { describe, expect, it } from "vitest";
import { describeCommand, describeExit } from "../src/debug/describe-command.js";

describe("describeCommand", () => {
  it("shows the command alone when it has no options worth showing", () => {
    expect(describeCommand("python3 script.py")).toBe("python3 script.py");
    expect(describeCommand("ls", { signal: new AbortController().signal, env: {} })).toBe("ls");
  });

  it("shows the cwd, the names of the variables (never their values) and the timeout", () => {
    const line = describeCommand("python3 script.py", {
      cwd: "/work",
      env: { PATH: "/usr/bin", CODECALL_RPC_TOKEN: "t0ken-value" },
      timeoutMs: 300_000,
    });
    expect(line).toBe("python3 script.py [cwd /work; env + PATH CODECALL_RPC_TOKEN; timeout 300000 ms]");
  });

  it("keeps to one line: up to three lines joined, a longer command cut to its first and last", () => {
    expect(describeCommand("cat <<'EOF'\nhello\nEOF")).toBe("cat <<'EOF'\\nhello\\nEOF");
    const launcher = ["exec python3 -c '# launcher", "import os", "import sys", "main()' '/tmp/run/script.py'"].join("\n");
    expect(describeCommand(launcher, { cwd: "/w" })).toBe("exec python3 -c '# launcher\\n… 2 more lines …\\nmain()' '/tmp/run/script.py' [cwd /w]");
  });

  it("says when the variables replace the environment's own", () => {
    expect(describeCommand("env", { clearEnv: true, env: { HOME: "/root" } })).toBe("env [only env HOME]");
    expect(describeCommand("env", { clearEnv: true })).toBe("env [only env (none)]");
  });
});

describe("describeExit", () => {
  it("gives the exit code, the signal when there is one, and the time since the start", () => {
    const startedAt = performance.now() - 1_000;
    expect(describeExit({ exitCode: 0 }, startedAt)).toMatch(/^exited 0 after 1\d{3} ms$/);
    expect(describeExit({ exitCode: 137, signal: "SIGKILL" }, startedAt)).toMatch(/^exited 137 \(SIGKILL\) after 1\d{3} ms$/);
  });
});
