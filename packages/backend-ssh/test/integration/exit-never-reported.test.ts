// Plain execs (the environment agent off) whose exit never arrives after a kill: the command is
// settled as killed within the bound, its result saying so, its streams ended and its channel
// released, instead of holding the host for ever. Each environment is built as SshEnvironment
// builds its own (core's ExecEnvironment over this package's connection, agent off), with a short
// bound. First the exit report alone is withheld from a real command that the real kill really
// ends; then, for real, the server's session processes are stopped (SIGSTOP) under a running
// command, so neither its exit nor the kill's channel can ever come through.
import { afterAll, beforeAll, expect, it } from "vitest";
import { ExecEnvironment, shellQuote, type ExecChannel, type StartExec } from "@codecall/core/backend-kit";
import { describeIntegration, processGoneCommand } from "@codecall/conformance";
import { executeCode, type EnvironmentProcess } from "@codecall/core";
import { builtinTools } from "@codecall/tools";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { SshConnection } from "../../src/ssh-connection.js";
import { resolveSshOptions } from "../../src/ssh-options.js";
import { connectionOptions, killQuietly, privateServerUnavailable, serverTree, sshd, startPrivateServer, type SshServer } from "./sshd.js";

/** The bound under test: how long after a kill the exit is waited for. */
const EXIT_AFTER_KILL_MS = 500;

function environmentOn(connection: SshConnection, start?: StartExec): ExecEnvironment {
  return new ExecEnvironment({
    backendId: "ssh",
    capabilities: { hostSockets: false, streamingStdio: true },
    start: start ?? ((exec) => connection.exec(exec.command, exec.control)),
    exitAfterKillMs: EXIT_AFTER_KILL_MS,
    onClose: () => connection.close(),
  });
}

function connectTo(server: SshServer): SshConnection {
  // No keepalive: the frozen server must not be noticed as lost by another way.
  return new SshConnection(resolveSshOptions({ ...connectionOptions(server), keepaliveIntervalMs: 0 }));
}

/** Reads `process`'s stdout until `text` has come. */
async function readUntil(process: EnvironmentProcess, text: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const reader = process.stdout.getReader();
  let seen = "";
  while (!seen.includes(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stdout ended before ${JSON.stringify(text)}: ${JSON.stringify(seen)}`);
    seen += new TextDecoder().decode(value);
  }
  return reader;
}

describeIntegration("ssh, agent off: a command whose exit report is withheld", sshd.unavailableReason, () => {
  let environment: ExecEnvironment;
  let withholdNext = false;
  /** Withholds the exit of every spawn (`streaming`), so of a script `executeCode` runs. */
  let withholdSpawns = false;
  let withheldClosed = 0;
  let scratch: string;

  beforeAll(async () => {
    const connection = connectTo(sshd.server!);
    environment = environmentOn(connection, async (exec) => {
      const channel = await connection.exec(exec.command, exec.control);
      if (!withholdNext && !(withholdSpawns && exec.streaming === true)) return channel;
      withholdNext = false;
      // The real channel, its command and output untouched; only the exit never reaches the host.
      const withheld: ExecChannel = {
        ...channel,
        exit: new Promise(() => {}),
        close: () => {
          withheldClosed += 1;
          channel.close();
        },
      };
      return withheld;
    });
    // With a timeout, so the private directory of kill pidfiles is made now, not by the command under test.
    scratch = (await environment.execute("mktemp -d", { timeoutMs: 30_000 })).stdout.trim();
  });

  afterAll(async () => {
    await environment?.execute(`rm -rf ${shellQuote(scratch)}`).catch(() => {});
    await environment?.close();
  });

  it("settles a timed-out execute as killed and timed out, saying the end was never reported; the kill itself went through", async () => {
    const pidFile = `${scratch}/timeout.pid`;
    withheldClosed = 0;
    withholdNext = true;
    const result = await environment.execute(`echo $$ > ${shellQuote(pidFile)}; echo started; exec sleep 60`, { timeoutMs: 300 });
    expect(result).toMatchObject({ timedOut: true, exitCode: 137, signal: "SIGKILL", stdout: "started\n" });
    expect(result.unconfirmed).toBe(
      "ssh reported no end of the command within 2.5 s of its kill; the host stopped waiting for it, and it may still be running there",
    );
    expect(withheldClosed).toBe(1);
    expect((await environment.execute(processGoneCommand(pidFile))).stdout).toBe("gone\n");
  });

  it("settles a killed spawn: kill() returns, wait() says the end was never reported, stdout ends", async () => {
    withheldClosed = 0;
    withholdNext = true;
    const process = await environment.spawn("echo started; exec sleep 60");
    const reader = await readUntil(process, "started");
    await process.kill();
    expect(await process.wait()).toEqual({
      exitCode: 137,
      signal: "SIGKILL",
      unconfirmed: "ssh reported no end of the command within 500 ms of its kill; the host stopped waiting for it, and it may still be running there",
    });
    expect((await reader.read()).done).toBe(true);
    expect(withheldClosed).toBe(1);
    expect((await environment.execute("echo alive")).stdout).toBe("alive\n");
  });

  it("gives executeCode a timeout result that says the end was never reported", async () => {
    withholdSpawns = true;
    try {
      const result = await executeCode({
        code: 'import time\nprint("started", flush=True)\ntime.sleep(60)',
        environment,
        transport: createFileTransport(),
        tools: builtinTools,
        limits: { timeoutMs: 1_000, killGraceMs: 0 },
      });
      expect(result.status).toBe("timeout");
      expect(result.error).toBe(
        "Script timed out after 1s and was killed. But ssh reported no end of the command within 500 ms of its kill; the host stopped waiting for it, and it may still be running there.",
      );
      expect(result.output).toBe(`started\n\n⏰ ${result.error}`);
    } finally {
      withholdSpawns = false;
    }
  });
});

describeIntegration("ssh, agent off: the server's session processes stopped under a running command", privateServerUnavailable(), () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let environment: ExecEnvironment;
  let stopped: number[] = [];

  beforeAll(async () => {
    server = await startPrivateServer();
    environment = environmentOn(connectTo(server.server));
  }, 120_000);

  afterAll(async () => {
    for (const pid of stopped) killQuietly(pid, "SIGCONT");
    const left = await serverTree(server.pidFile).catch(() => undefined);
    await environment?.close();
    for (const pid of left?.commands ?? []) killQuietly(pid, "SIGKILL");
    await server?.dispose();
  });

  it("settles a killed command although neither its exit nor the kill can get through", async () => {
    const process = await environment.spawn("echo started; exec sleep 60");
    const reader = await readUntil(process, "started");
    stopped = (await serverTree(server.pidFile)).sessions;
    expect(stopped.length).toBeGreaterThan(0);
    for (const pid of stopped) killQuietly(pid, "SIGSTOP");

    await process.kill();
    const exit = await process.wait();
    expect(exit).toMatchObject({ exitCode: 137, signal: "SIGKILL" });
    expect(exit.unconfirmed).toMatch(/^ssh reported no end of the command within 500 ms of its kill/);
    expect((await reader.read()).done).toBe(true);
    // The command is still there: nothing could reach it while the server was stopped.
    expect((await serverTree(server.pidFile)).commands.length).toBeGreaterThan(0);
  });
});
