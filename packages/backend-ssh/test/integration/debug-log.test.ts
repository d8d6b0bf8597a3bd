// The backend debug lines of an SSH environment against the real OpenSSH server: the connection,
// the host key check, each command and its exit, the disconnect.
import { describeIntegration } from "@codecall/conformance";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { afterEach, expect, it } from "vitest";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

describeIntegration("ssh backend debug lines", sshd.unavailableReason, () => {
  afterEach(() => {
    setDebugSink();
    setDebugNamespaces(undefined);
  });

  it("show the connection, the host key verdict, each command and its exit, and the disconnect (plain execs)", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const { host, port, user } = sshd.server!;
    const environment = await createEnvironment({ ...connectionOptions(), environmentAgent: false });
    try {
      expect((await environment.execute("exit 4", { cwd: "/tmp" })).exitCode).toBe(4);
    } finally {
      await environment.close();
    }
    const target = `${user}@${host}:${port}`;
    expect(lines).toEqual([
      // The key's path shows, or its masked form when the host env holds it under a secret-looking
      // name (CI exports CODECALL_SSH_KEY): debug lines mask the host's secret values.
      expect.stringMatching(
        new RegExp(
          `^codecall:backend ssh: connecting to ${target} \\(login: public key (${escape(sshd.server!.keyPath)}|\\S+\\.\\.\\.\\S+); host key check: known-hosts\\)$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^codecall:backend ssh: ${host}:${port} presented host key SHA256:[A-Za-z0-9+/]{43}: accepted$`)),
      expect.stringMatching(new RegExp(`^codecall:backend ssh: connected to ${target} in \\d+ ms$`)),
      "codecall:backend ssh agent: off; plain execs",
      "codecall:backend ssh command 1: exit 4 [cwd /tmp]",
      expect.stringMatching(/^codecall:backend ssh command 1: exited 4 after \d+ ms$/),
      `codecall:backend ssh: disconnected from ${target}`,
    ]);
  });

  it("show the environment agent's start on the connection, and each command through it", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    const environment = await createEnvironment(connectionOptions());
    try {
      expect((await environment.execute("exit 4", { cwd: "/tmp" })).exitCode).toBe(4);
    } finally {
      await environment.close();
    }
    const { host, port, user } = sshd.server!;
    expect(lines.slice(3)).toEqual([
      expect.stringMatching(/^codecall:backend ssh agent: up in \d+ ms \(pid \d+, Python 3\.[\d.]+, subreaper\)$/),
      "codecall:backend ssh agent command 1: exit 4 [cwd /tmp]",
      expect.stringMatching(/^codecall:backend ssh agent command 1: exited 4 after \d+ ms$/),
      `codecall:backend ssh: disconnected from ${user}@${host}:${port}`,
    ]);
  });
});

/** `text` as a literal inside a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
