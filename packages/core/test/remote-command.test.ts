import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isMissingCwdFailure,
  remoteCommand,
  remoteKillCommand,
  WRAPPER_FAILURE_EXIT_CODE,
  type RemoteCommandOptions,
} from "../src/remote/remote-command.js";
import { processGone } from "./support/process-gone.js";

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs argv the way an exec API would: no shell of ours around it, stdin = prefix + data. */
function run(argv: string[], stdin: string | Buffer = ""): { done: Promise<Ran>; pid: number } {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  const done = new Promise<Ran>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { done, pid: child.pid! };
}

function runWrapped(command: string, options: RemoteCommandOptions = {}, stdin: string | Buffer = "") {
  const wrapped = remoteCommand(command, options);
  return run(wrapped.argv, Buffer.concat([Buffer.from(wrapped.stdinPrefix), Buffer.from(stdin)]));
}

describe("remoteCommand wrapper", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-remote-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the command with its stdout, stderr and exit code", async () => {
    const result = await runWrapped("printf out; printf err >&2; exit 7").done;
    expect(result).toEqual({ code: 7, stdout: "out", stderr: "err" });
  });

  it("keeps the command and env values out of argv", () => {
    const wrapped = remoteCommand("echo top-secret-command", { env: { API: "secret-env-value" } });
    expect(wrapped.argv.join(" ")).not.toContain("top-secret-command");
    expect(wrapped.command).not.toContain("secret-env-value");
    expect(wrapped.stdinPrefix.endsWith("\n")).toBe(true);
    expect(wrapped.stdinPrefix.trimEnd()).not.toContain("\n");
  });

  it("sets env values exactly, whatever they contain", async () => {
    const tricky = `it's "quoted" $HOME \`tick\` \\ back\nnew line ✓`;
    const result = await runWrapped('printf "%s" "$TRICKY"', { env: { TRICKY: tricky } }).done;
    expect(result.stdout).toBe(tricky);
  });

  it("clears the env when asked, even of PATH", async () => {
    // The shell exports PWD itself; everything else must be gone.
    const result = await runWrapped("/usr/bin/env | cut -d= -f1 | sort", { env: { ONLY: "yes" }, clearEnv: true }).done;
    expect(result.stdout).toBe("ONLY\nPWD\n");
  });

  it("keeps the default env otherwise", async () => {
    const result = await runWrapped('printf "%s" "${PATH:+has-path}"', { env: { X: "1" } }).done;
    expect(result.stdout).toBe("has-path");
  });

  it("runs in the working directory and reports a missing one", async () => {
    expect((await runWrapped("pwd", { cwd: dir }).done).stdout.trim()).toBe(dir);
    const missing = await runWrapped("pwd", { cwd: `${dir}/nope` }).done;
    expect(missing.code).toBe(WRAPPER_FAILURE_EXIT_CODE);
    expect(isMissingCwdFailure(missing.code!, missing.stderr)).toBe(true);
    expect(missing.stderr).toContain(`${dir}/nope`);
  });

  it("hands the rest of stdin to the command, byte for byte", async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    const result = await runWrapped("od -An -v -tx1 | tr -d ' \\n'", {}, bytes).done;
    expect(result.stdout).toBe(bytes.toString("hex"));
  });

  it("ends what the command leaves running when it exits", async () => {
    const pidFile = path.join(dir, "bg.pid");
    const result = await runWrapped(`sleep 300 & echo $! > '${pidFile}'; echo started`).done;
    expect(result.stdout).toBe("started\n");
    expect(await processGone(Number(await readFile(pidFile, "utf8")))).toBe(true);
  });

  it("enforces the timeout inside the environment", async () => {
    const pidFile = path.join(dir, "child.pid");
    const result = await runWrapped(`sleep 300 & echo $! > '${pidFile}'; wait`, { timeoutMs: 1000 }).done;
    expect([124, 137]).toContain(result.code);
    expect(await processGone(Number(await readFile(pidFile, "utf8")))).toBe(true);
  });

  it("ends what escaped the group too when the in-environment timeout fires (the host may be gone)", async () => {
    const pidFile = path.join(dir, "run.pid");
    const escapedPidFile = path.join(dir, "escaped.pid");
    // setsid: a new session, out of the command's process group; only its inherited tag betrays it.
    const result = await runWrapped(`setsid sh -c 'sleep 300 & echo $! > "${escapedPidFile}"; wait' & wait`, { timeoutMs: 1000, pidFile }).done;
    expect([124, 137]).toContain(result.code);
    expect(await processGone(Number(await readFile(escapedPidFile, "utf8")))).toBe(true);
  });

  it("lets a second command kill the whole group through the pidfile", async () => {
    const pidFile = path.join(dir, "run.pid");
    const childPidFile = path.join(dir, "child.pid");
    const started = runWrapped(`sleep 300 & echo $! > '${childPidFile}'; wait`, { pidFile });
    for (let attempt = 0; attempt < 100 && !/^\d+$/.test((await readFile(pidFile, "utf8").catch(() => "")).trim()); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const killer = remoteKillCommand(pidFile, 500);
    expect((await run(killer.argv).done).code).toBe(0);
    const result = await started.done;
    expect(result.code).not.toBe(0);
    expect((await readFile(pidFile, "utf8")).trim()).toBe("done");
    expect(await processGone(Number(await readFile(childPidFile, "utf8")))).toBe(true);
  });

  it("reports a killed command by its exit code alone, with no shell job notice on stderr", async () => {
    const pidFile = path.join(dir, "noisy.pid");
    const marker = path.join(dir, "noisy.started");
    // Under `timeout`, which re-raises the SIGTERM it forwards: dash's `wait` would print "Terminated".
    const started = runWrapped(`echo started; : > ${marker}; sleep 300`, { pidFile, timeoutMs: 60_000 });
    // Killed only once it has printed (on a loaded machine the shell can take seconds to get there).
    for (
      let attempt = 0;
      attempt < 1500 &&
      !(await readFile(marker).then(
        () => true,
        () => false,
      ));
      attempt += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await run(remoteKillCommand(pidFile, 1000).argv).done;
    const result = await started.done;
    expect(result).toEqual({ code: 143, stdout: "started\n", stderr: "" });
  });

  it("kills at once with no grace, and does nothing for a finished command", async () => {
    const pidFile = path.join(dir, "quick.pid");
    expect((await runWrapped("true", { pidFile }).done).code).toBe(0);
    expect((await readFile(pidFile, "utf8")).trim()).toBe("done");
    expect((await run(remoteKillCommand(pidFile, 0).argv).done).code).toBe(0);
  });

  it("fails clearly without a header", async () => {
    const wrapped = remoteCommand("echo hi");
    const result = await run(wrapped.argv, "").done;
    expect(result.code).toBe(WRAPPER_FAILURE_EXIT_CODE);
    expect(result.stderr).toContain("missing command header");
  });
});
