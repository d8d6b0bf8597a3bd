// The environment agent under failure, on core's ExecEnvironment over local processes (no service
// needed): no python3, the agent killed mid-run (one restart, then plain execs; a command that may
// have run is never run again), garbage on its stdout, a flood of output beside other commands,
// and 500 commands at once.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setDebugNamespaces, setDebugSink } from "@codecall/core";
import { ExecEnvironment, type StartExec } from "@codecall/core/backend-kit";
import { startLocalExec } from "./local-exec.js";

const CAPABILITIES = { hostSockets: false, streamingStdio: true } as const;

function agentEnvironment(start: StartExec = startLocalExec): ExecEnvironment {
  return new ExecEnvironment({ backendId: "exec-local", capabilities: CAPABILITIES, start, agent: true });
}

/** True once `pid` has ended (a zombie counts as ended), polling for up to 10 s. */
async function ended(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    if (!/^State:\s+[^Z]/m.test(status)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function waitForFile(file: string): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.trim() !== "") return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${file} stayed empty`);
}

describe("the environment agent under failure", () => {
  let lines: string[];
  let dir: string;

  beforeEach(async () => {
    lines = [];
    setDebugSink((line) => lines.push(line.replace(/^(\S+) \+\d+ms /, "$1 ")));
    setDebugNamespaces("backend");
    dir = await mkdtemp(path.join(tmpdir(), "codecall-agent-"));
  });

  afterEach(async () => {
    setDebugSink();
    setDebugNamespaces(undefined);
    await rm(dir, { recursive: true, force: true });
  });

  /** The pids of the agents started so far, from their debug lines. */
  const agentPids = () => lines.flatMap((line) => /agent: up in \d+ ms \(pid (\d+)/.exec(line)?.slice(1) ?? []).map(Number);

  it("uses plain execs, and says why, when python3 is not in the environment", async () => {
    // A PATH with every program of this machine but Python.
    const bin = path.join(dir, "bin");
    await mkdir(bin);
    for (const source of ["/usr/local/bin", "/usr/bin", "/bin"]) {
      for (const name of await readdir(source).catch(() => [])) {
        if (!name.startsWith("python") && !existsSync(path.join(bin, name))) await symlink(path.join(source, name), path.join(bin, name));
      }
    }
    const environment = agentEnvironment(({ argv, ...rest }) => startLocalExec({ ...rest, argv: ["env", `PATH=${bin}`, ...argv] }));
    try {
      expect((await environment.execute("echo plain; command -v python3 || echo no python")).stdout).toBe("plain\nno python\n");
      await environment.writeFile(`${dir}/file.txt`, "bytes");
      expect(new TextDecoder().decode(await environment.readFile(`${dir}/file.txt`))).toBe("bytes");
    } finally {
      await environment.close();
    }
    expect(lines).toContain(
      "codecall:backend exec-local agent: could not start (python3 is not installed in the environment); plain execs from now on",
    );
    expect(lines.filter((line) => line.includes("agent command"))).toEqual([]);
  });

  it("restarts a killed agent once, then uses plain execs; a command that may have run is never run again", async () => {
    const environment = agentEnvironment();
    try {
      const marker = `${dir}/runs`;
      const childPid = `${dir}/child.pid`;
      const running = environment.execute(`echo ran >> ${marker}; sleep 300 & echo $! > ${childPid}; wait`);
      const child = Number(await waitForFile(childPid));
      const [first] = agentPids();
      process.kill(first!, "SIGKILL");
      await expect(running).rejects.toThrow(/^The exec-local environment lost the command: the agent exited with code 137$/);
      // Its command's tree went with it, and nothing ran it again.
      expect(await ended(child)).toBe(true);
      expect(await readFile(marker, "utf8")).toBe("ran\n");
      expect(lines).toContain("codecall:backend exec-local agent: lost (the agent exited with code 137); the next operation starts a new one");

      expect((await environment.execute("echo second")).stdout).toBe("second\n");
      const [, second] = agentPids();
      expect(second).toBeGreaterThan(0);
      process.kill(second!, "SIGKILL");
      // Files can be repeated safely: this one goes through on plain execs.
      await environment.writeFile(`${dir}/after.txt`, "after");
      expect((await environment.execute(`cat ${dir}/after.txt`)).stdout).toBe("after");
      expect(lines).toContain("codecall:backend exec-local agent: lost (the agent exited with code 137); plain execs from now on");
      expect(lines.at(-2)).toMatch(/^codecall:backend exec-local command \d+: cat /);
      expect(agentPids()).toHaveLength(2);
    } finally {
      await environment.close();
    }
  });

  it("gives up an agent that stops answering (frozen) instead of waiting on it forever, and starts a new one", async () => {
    const environment = new ExecEnvironment({
      backendId: "exec-local",
      capabilities: CAPABILITIES,
      start: startLocalExec,
      agent: true,
      // Short, for the test, yet long enough that a healthy agent on a loaded CI machine is never given up.
      agentWatch: { silenceMs: 500, answerMs: 3_000 },
    });
    let frozen: number | undefined;
    try {
      expect((await environment.execute("echo up")).stdout).toBe("up\n");
      [frozen] = agentPids();
      // Stopped, it reads nothing and answers nothing while its channel stays open: the command's
      // request gets no reply, so no timeout of the command is armed yet.
      process.kill(frozen!, "SIGSTOP");
      await expect(environment.executeOneshot("echo late", { timeoutMs: 600_000 })).rejects.toThrow(
        /^The exec-local environment lost the command as it started it \(the agent stopped answering: nothing came from it for 500 ms while the host waited on it, nor for 3 s after a ping\); it may have run, so it is not run again$/,
      );
      expect(lines).toContain(
        "codecall:backend exec-local agent: lost (the agent stopped answering: nothing came from it for 500 ms while the host waited on it, nor for 3 s after a ping); the next operation starts a new one",
      );
      // Given up for good: its pid was killed, stopped as it was.
      expect(await ended(frozen!)).toBe(true);
      expect((await environment.execute("echo second")).stdout).toBe("second\n");
      expect(agentPids()).toHaveLength(2);
    } finally {
      // Should the test fail before the agent was given up, it must not stay stopped.
      if (frozen !== undefined && !(await ended(frozen))) process.kill(frozen, "SIGCONT");
      await environment.close();
    }
  });

  it("gives up an agent whose stdout carries garbage, ends what it ran, and starts a new one", async () => {
    // Bytes the agent did not write, between (or inside) its frames: what a script running as its
    // user can do to a pipe (the docker suite does that for real; here the exec's stdout is a socket).
    let inject: ((bytes: Uint8Array) => void) | undefined;
    const environment = agentEnvironment(async (exec) => {
      const channel = await startLocalExec(exec);
      if (!exec.argv.includes("codecall-agent")) return channel;
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
        start: (controller) => void (inject = (bytes) => controller.enqueue(bytes)),
      });
      void channel.stdout.pipeTo(writable).catch(() => {});
      return { ...channel, stdout: readable };
    });
    try {
      const childPid = `${dir}/child.pid`;
      const running = environment.execute(`sleep 300 & echo $! > ${childPid}; wait`);
      const child = Number(await waitForFile(childPid));
      const [agent] = agentPids();
      inject!(new TextEncoder().encode("\xff\xff\xff\xff garbage from a script\n"));
      await expect(running).rejects.toThrow(/^The exec-local environment lost the command: the agent sent garbage \(/);
      expect(await ended(agent!)).toBe(true);
      expect(await ended(child)).toBe(true);
      expect((await environment.execute("echo fine")).stdout).toBe("fine\n");
      expect(agentPids()).toHaveLength(2);
    } finally {
      await environment.close();
    }
  });

  it("serves other commands while one floods its output, in bounded host memory", async () => {
    const environment = agentEnvironment();
    try {
      await environment.execute("true");
      // One flood nobody reads (it stops at the window), one read but capped (it flows through).
      const unread = await environment.spawn("cat /dev/zero");
      const before = process.memoryUsage().arrayBuffers;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 20);
      const flood = environment.execute("head -c 300000000 /dev/zero; echo done >&2", { maxOutputBytes: 1000 });
      const others = await Promise.all(Array.from({ length: 50 }, (_, index) => environment.execute(`echo ${index}`)));
      expect(others.map((result) => result.stdout)).toEqual(Array.from({ length: 50 }, (_, index) => `${index}\n`));
      const flooded = await flood;
      clearInterval(sampler);
      expect(flooded).toMatchObject({ exitCode: 0, stderr: "done\n", truncated: true });
      // 300 MB went through; the host held a window's worth at a time.
      expect(peak - before).toBeLessThan(64 * 1024 * 1024);
      await unread.kill();
      expect((await unread.wait()).signal).toBe("SIGKILL");
    } finally {
      await environment.close();
    }
  });

  it("runs 500 commands at once", async () => {
    const environment = agentEnvironment();
    try {
      const results = await Promise.all(Array.from({ length: 500 }, (_, index) => environment.execute(`echo ${index}`)));
      expect(results.map((result) => result.stdout)).toEqual(Array.from({ length: 500 }, (_, index) => `${index}\n`));
      expect(lines.filter((line) => line.includes("agent: up"))).toHaveLength(1);
    } finally {
      await environment.close();
    }
  }, 120_000);
});
