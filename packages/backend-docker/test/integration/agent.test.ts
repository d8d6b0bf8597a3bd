// The environment agent in a real container, where scripts can attack it: garbage written into
// its stdout, `kill -9 -1` as the container's user, the agent killed from outside mid-run — each
// run ends with a clear error, never a hang, and where the container lives on, the environment
// goes on working (the agent restarted). Also 500 commands at once, and a flood of output beside
// other commands.
import Docker from "dockerode";
import { afterAll, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment, type DockerEnvironment, type DockerEnvironmentOptions } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

const docker = new Docker();
const opened: DockerEnvironment[] = [];

async function environment(options: Partial<DockerEnvironmentOptions> = {}): Promise<DockerEnvironment> {
  const created = await createEnvironment({ image: TEST_IMAGE, ...options });
  opened.push(created);
  return created;
}

/** Python that sets `agent` to the agent's pid (its idle shepherds carry the same command line, below it). */
const FIND_AGENT = `
import os
def _args(pid):
    try:
        return open("/proc/%s/cmdline" % pid, "rb").read().split(b"\\0")
    except OSError:
        return []
def _parent(pid):
    stat = open("/proc/%s/stat" % pid, "rb").read()
    return stat[stat.rindex(b")") + 2 :].split()[1].decode()
_agents = [pid for pid in os.listdir("/proc") if pid.isdigit() and _args(pid)[-2:] == [b"codecall-agent", b""]]
agent = int([pid for pid in _agents if _parent(pid) not in _agents][0])
`;

/** The container's processes as `docker top` shows them: host pid, parent, user, command line. */
async function processes(environment: DockerEnvironment): Promise<{ pid: number; ppid: number; user: string; args: string }[]> {
  const top = (await docker.getContainer(environment.containerId!).top({ ps_args: "-eo pid,ppid,user,args" })) as { Processes: string[][] };
  return top.Processes.map(([pid, ppid, user, ...args]) => ({ pid: Number(pid), ppid: Number(ppid), user: user!, args: args.join(" ") }));
}

describeIntegration("the environment agent in a container", dockerUnavailable, () => {
  afterAll(async () => {
    await Promise.all(opened.map((environment) => environment.close().catch(() => {})));
  });

  it("ends a run that writes garbage into the agent's stdout with a clear error, and goes on with a new agent", async () => {
    const env = await environment();
    const result = await executeCode({
      environment: env,
      transport: createTransport(),
      tools: builtinTools,
      code: `${FIND_AGENT}
print("writing", flush=True)
with open("/proc/%d/fd/1" % agent, "wb") as stdout:
    stdout.write(b"\\xff" * 64 + b" not a frame\\n")
import time
time.sleep(30)
`,
    });
    expect(result.status).toBe("error");
    expect(result.error).toMatch(
      /^docker environment failed: The docker environment lost the command: the agent sent garbage \(the agent sent a frame of unknown kind 255\)$/,
    );
    // What the script printed may have been behind the garbage, where nothing can be trusted.
    expect(result.output.endsWith(result.error!)).toBe(true);
    expect((await env.execute("echo still here")).stdout).toBe("still here\n");
  }, 120_000);

  it("ends a run whose script kills every process it can see (kill -9 -1, as the container's user) with a clear error", async () => {
    // The container's keep-alive runs as the same user, so the signal stops the container too:
    // the run ends with why, and so does every later command instead of hanging.
    const env = await environment({ user: "65534" });
    const result = await executeCode({
      environment: env,
      transport: createTransport(),
      tools: builtinTools,
      code: 'import os, signal, time\nprint("killing", flush=True)\nos.kill(-1, signal.SIGKILL)\ntime.sleep(1)\nprint("survived")',
    });
    expect(result.status).toBe("error");
    // Which is seen first depends on the engine: the agent's exec ending, or the container stopping.
    expect(result.error).toMatch(
      new RegExp(
        `^docker environment failed: The docker environment lost the command: (the agent exited with code 137|container ${env.containerName} stopped \\(exit code 137\\): it was stopped or killed outside codecall)$`,
      ),
    );
    // What it printed just before may not have left the agent before the agent was killed.
    expect(result.output.endsWith(result.error!)).toBe(true);
    await expect(env.execute("echo after")).rejects.toThrow(/stopped \(exit code 137\)/);
  }, 120_000);

  it("reports a run lost when its agent is killed from outside, ends the run's processes, and restarts the agent once", async () => {
    const env = await environment();
    let killed: Promise<void> | undefined;
    const result = await executeCode({
      environment: env,
      transport: createTransport(),
      tools: builtinTools,
      code: 'import subprocess, time\nsubprocess.Popen(["sleep", "301"])\nprint("started", flush=True)\ntime.sleep(300)',
      onStdout: () =>
        void (killed ??= (async () => {
          const rows = await processes(env);
          const agents = rows.filter((row) => row.args.endsWith(" codecall-agent"));
          const agent = agents.find((row) => !agents.some((other) => other.pid === row.ppid))!;
          process.kill(agent.pid, "SIGKILL");
        })()),
    });
    await killed;
    expect(result.status).toBe("error");
    expect(result.error).toBe("docker environment failed: The docker environment lost the command: the agent exited with code 137");
    // The script's tree ended with the agent (its shepherd's death signal).
    for (let attempt = 0; attempt < 50 && (await processes(env)).some((row) => /sleep 30[01]|script\.py/.test(row.args)); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await processes(env)).filter((row) => /sleep 30[01]|script\.py/.test(row.args))).toEqual([]);
    expect((await env.execute("echo restarted")).stdout).toBe("restarted\n");
  }, 120_000);

  it("runs 500 commands at once", async () => {
    const env = await environment({ pidsLimit: 4096 });
    const results = await Promise.all(Array.from({ length: 500 }, (_, index) => env.execute(`echo ${index}`)));
    expect(results.map((result) => result.stdout)).toEqual(Array.from({ length: 500 }, (_, index) => `${index}\n`));
  }, 180_000);

  it("serves other commands while one floods its output", async () => {
    const env = await environment();
    const flood = env.execute("head -c 200000000 /dev/zero", { maxOutputBytes: 1000 });
    const others = await Promise.all(Array.from({ length: 20 }, (_, index) => env.execute(`echo ${index}`)));
    expect(others.map((result) => result.stdout)).toEqual(Array.from({ length: 20 }, (_, index) => `${index}\n`));
    expect(await flood).toMatchObject({ exitCode: 0, truncated: true });
  }, 120_000);
});
