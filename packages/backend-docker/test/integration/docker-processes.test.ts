// Docker cannot kill an exec, so timeouts and interrupts are carried out inside the container.
// Checked from the engine's side (`docker top`): once a run has ended, nothing it started is left.
import Docker from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createEnvironment, type DockerEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

/** A script that spreads out: a thread, a subprocess pipeline, a forked worker, a shell job. */
const SPRAWLING_SCRIPT = `
import multiprocessing, subprocess, threading, time
from codecall import terminal
subprocess.Popen(["sh", "-c", "sleep 301 | cat"])
worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(302,))
worker.start()
threading.Thread(target=terminal, args=("sleep 1",), daemon=True).start()
subprocess.Popen("sleep 303 &", shell=True)
print("spread out", flush=True)
time.sleep(300)
`;

/** What {@link SPRAWLING_SCRIPT} leaves running: the pipeline, the shell job, script and forked worker (each the launcher's interpreter, named by its arguments). */
const SPREAD = [
  / sleep 301$/m,
  / cat$/m,
  / sleep 303$/m,
  /python3 -c # codecall launcher.* \S+\/script\.py$(.|\n)*python3 -c # codecall launcher.* \S+\/script\.py$/m,
];

describeIntegration("docker backend: no process outlives its run", dockerUnavailable, () => {
  const docker = new Docker();
  let environment: DockerEnvironment;
  /** The container's own processes (init and keep-alive), as `docker top` shows them. */
  let baseline: string[];

  /** The container's processes but the environment agent's own (it and its idle shepherd stay up between runs). */
  const processes = async () => {
    const top = (await docker.getContainer(environment.containerId!).top({ ps_args: "-eo pid,args" })) as { Processes: string[][] };
    return top.Processes.map((row) => row.join(" "))
      .filter((row) => !row.endsWith(" codecall-agent"))
      .sort();
  };

  /** The processes once all of `expected` show up (a shell forks its children a moment after it starts). */
  const processesIncluding = async (expected: RegExp[]) => {
    let current = await processes();
    for (let attempt = 0; attempt < 50 && !expected.every((pattern) => pattern.test(current.join("\n"))); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await processes();
    }
    return current;
  };

  /** The container's processes once the run's have been reaped (which takes the kernel a moment). */
  const settledProcesses = async () => {
    let current = await processes();
    for (let attempt = 0; attempt < 50 && current.join("\n") !== baseline.join("\n"); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await processes();
    }
    return current;
  };

  beforeAll(async () => {
    environment = await createEnvironment({ image: TEST_IMAGE });
    baseline = await processes();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("kills everything a script started when it times out, and keeps its output", async () => {
    let during: Promise<string[]> | undefined;
    const result = await executeCode({
      environment,
      transport: createTransport(),
      tools: builtinTools,
      code: SPRAWLING_SCRIPT,
      limits: { timeoutMs: 15_000, killGraceMs: 1_000 },
      onStdout: () => void (during ??= processesIncluding(SPREAD)),
    });
    // The script really spread out before the kill: pipeline, orphaned shell job, forked worker.
    const spread = (await during!).join("\n");
    for (const pattern of SPREAD) expect(spread).toMatch(pattern);
    expect(result.status).toBe("timeout");
    expect(result.output).toBe("spread out\n\n⏰ Script timed out after 15s and was killed.");
    expect(await settledProcesses()).toEqual(baseline);
  });

  it("kills everything a script started when it is interrupted", async () => {
    const controller = new AbortController();
    const result = await executeCode({
      environment,
      transport: createTransport(),
      tools: builtinTools,
      code: SPRAWLING_SCRIPT,
      signal: controller.signal,
      onStdout: () => controller.abort("stop"),
    });
    expect(result.status).toBe("interrupted");
    expect(await settledProcesses()).toEqual(baseline);
  });

  it("kills the tree of a command that times out", async () => {
    const result = await environment.execute("echo partial; sleep 310 | cat & sleep 311", { timeoutMs: 1_000 });
    expect(result).toMatchObject({ timedOut: true, stdout: "partial\n", stderr: "" });
    expect(await settledProcesses()).toEqual(baseline);
  });
});
