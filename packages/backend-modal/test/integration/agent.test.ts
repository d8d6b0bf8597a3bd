// The environment agent in a (fake) Modal sandbox, killed from outside: a run or a command in
// flight ends with a clear error and is never run again, the run's processes end with the agent,
// the next operation starts a new agent, and after a second loss the environment goes on with plain
// execs. The fake runs the sandbox's processes on this machine, tagged with the sandbox's id, so
// the test finds the agent in /proc.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, afterEach, expect, it } from "vitest";
import { executeCode, setDebugNamespaces, setDebugSink } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment, type ModalEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

/** The pids of the sandbox's processes whose command line contains `text` (none once they ended). */
function sandboxProcesses(environment: ModalEnvironment, text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      if (!environ.includes(`FAKE_MODAL_SANDBOX=${environment.sandboxId}`)) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(text)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Kills the sandbox's agent (the one whose parent is not an agent: its shepherds carry its command line). */
function killAgent(environment: ModalEnvironment): void {
  const agents = sandboxProcesses(environment, "codecall-agent");
  const parentOf = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  };
  const agent = agents.find((pid) => !agents.includes(parentOf(pid)));
  if (agent === undefined) throw new Error("no agent in the sandbox");
  process.kill(agent, "SIGKILL");
}

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !check(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
}

describeIntegration("the environment agent in a Modal sandbox, killed from outside", undefined, () => {
  afterEach(() => {
    setDebugSink();
    setDebugNamespaces(undefined);
  });

  it("ends the run with a clear error, ends the run's processes, and starts a new agent for the next operation", async () => {
    await using environment = await createEnvironment();
    const marker = `sleep 303.${Date.now() % 100_000}`;
    let killed = false;
    const result = await executeCode({
      environment,
      transport: createTransport(),
      tools: builtinTools,
      code: `import subprocess, time\nsubprocess.Popen(["sh", "-c", "${marker}"])\nprint("started", flush=True)\ntime.sleep(300)`,
      onStdout: () => {
        if (killed) return;
        killed = true;
        killAgent(environment);
      },
    });
    expect(result.status).toBe("error");
    expect(result.error).toBe("modal environment failed: The modal environment lost the command: the agent exited with code 137");
    await until(() => sandboxProcesses(environment, marker).length === 0);
    expect(sandboxProcesses(environment, marker)).toEqual([]);
    expect((await environment.execute("echo restarted")).stdout).toBe("restarted\n");
  });

  it("never runs again a command the lost agent may have run, and after a second loss goes on with plain execs", async () => {
    const lines: string[] = [];
    setDebugSink((line) => lines.push(line));
    setDebugNamespaces("backend");
    await using environment = await createEnvironment();
    const dir = await environment.tempDir();
    for (const round of [1, 2]) {
      const running = environment.execute(`echo ran >> ${dir}/count; sleep 300`).catch((error: unknown) => error);
      await until(() => sandboxProcesses(environment, "sleep 300").length > 0);
      killAgent(environment);
      const error = (await running) as Error;
      expect(error.message).toBe("The modal environment lost the command: the agent exited with code 137");
      // Ran once: not again on a new agent or as a plain exec.
      expect((await environment.readFile(`${dir}/count`)).length).toBe(round * "ran\n".length);
    }
    expect((await environment.execute("echo plain")).stdout).toBe("plain\n");
    expect(lines.filter((line) => / agent: (lost|up|off)/.test(line)).map((line) => line.replace(/^\S+ \+\d+ms /, ""))).toEqual([
      expect.stringMatching(/^modal agent: up in \d+ ms/),
      "modal agent: lost (the agent exited with code 137); the next operation starts a new one",
      expect.stringMatching(/^modal agent: up in \d+ ms/),
      "modal agent: lost (the agent exited with code 137); plain execs from now on",
    ]);
    expect(lines.some((line) => line.includes("modal command ") && line.includes("echo plain"))).toBe(true);
  });
});
