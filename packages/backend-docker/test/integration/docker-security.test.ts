// The sandbox settings, checked from inside the container (what a script can actually do), not
// only in the create request: default lock-down, and every limit option taking effect.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport } from "@codecall/transport-file";
import { createEnvironment, type DockerEnvironment, type DockerEnvironmentOptions } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

const docker = new Docker();

/** Runs `body` with an environment made from `options`, closed afterwards. */
async function withEnvironment(
  options: Omit<DockerEnvironmentOptions, "image">,
  body: (environment: DockerEnvironment) => Promise<void>,
): Promise<void> {
  const environment = await createEnvironment({ image: TEST_IMAGE, ...options });
  try {
    await body(environment);
  } finally {
    await environment.close();
  }
}

/** A cgroup file, from cgroup v2 or v1, whichever the engine uses. */
const cgroupValue = (v2: string, v1: string) => `cat /sys/fs/cgroup/${v2} 2>/dev/null || cat /sys/fs/cgroup/${v1}`;

describeIntegration("docker backend: sandbox settings", dockerUnavailable, () => {
  let defaults: DockerEnvironment;

  beforeAll(async () => {
    defaults = await createEnvironment({ image: TEST_IMAGE });
  });

  afterAll(async () => {
    await defaults?.close();
  });

  it("runs commands with no capabilities and no way to gain privileges", async () => {
    const status = await defaults.execute("grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status");
    expect(status.stdout).toBe("CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nNoNewPrivs:\t1\n");
    // Root without CAP_CHOWN cannot give a file away.
    const chown = await defaults.execute("touch /tmp/mine && chown 1000 /tmp/mine");
    expect(chown.exitCode).not.toBe(0);
    expect(chown.stderr).toMatch(/Operation not permitted/);
  });

  it("limits processes, reaps orphans with an init, and is not privileged", async () => {
    const pids = await defaults.execute(cgroupValue("pids.max", "pids/pids.max"));
    expect(pids.stdout.trim()).toBe("512");
    const init = await defaults.execute("cat /proc/1/comm");
    expect(init.stdout.trim()).toBe("docker-init");
    const info = await docker.getContainer(defaults.containerId!).inspect();
    expect(info.HostConfig).toMatchObject({ Privileged: false, Init: true, CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"] });
  });

  it("still runs a script whose tool calls work, under these defaults", async () => {
    const result = await executeCode({
      environment: defaults,
      transport: createTransport(),
      tools: builtinTools,
      code: 'import subprocess\nfrom codecall import terminal\nprint(terminal("id -u")["output"].strip(), subprocess.run(["true"]).returncode)',
    });
    expect(result).toMatchObject({ status: "success", output: "0 0\n" });
  });

  it("applies memory, CPU and pids limits", async () => {
    await withEnvironment({ memory: "256m", cpus: 0.5, pidsLimit: 64 }, async (environment) => {
      const memory = await environment.execute(cgroupValue("memory.max", "memory/memory.limit_in_bytes"));
      expect(Number(memory.stdout.trim())).toBe(256 * 1024 ** 2);
      const pids = await environment.execute(cgroupValue("pids.max", "pids/pids.max"));
      expect(pids.stdout.trim()).toBe("64");
      const cpu = await environment.execute(
        `${cgroupValue("cpu.max", "cpu/cpu.cfs_quota_us")}; cat /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || true`,
      );
      // v2: "50000 100000"; v1: quota and period on two lines.
      expect(cpu.stdout.trim().split(/\s+/)).toEqual(["50000", "100000"]);
    });
  });

  it("cuts the network with network: none", async () => {
    await withEnvironment({ network: "none" }, async (environment) => {
      const interfaces = await environment.execute("ls /sys/class/net");
      expect(interfaces.stdout.trim()).toBe("lo");
    });
  });

  it("runs on a read-only root with a writable /tmp, scripts included", async () => {
    await withEnvironment({ readOnly: true }, async (environment) => {
      const write = await environment.execute("touch /etc/codecall-probe");
      expect(write.stderr).toMatch(/Read-only file system/);
      const result = await executeCode({
        environment,
        transport: createTransport(),
        tools: builtinTools,
        code: 'from codecall import terminal\nprint(terminal("echo ok")["output"].strip())',
      });
      expect(result).toMatchObject({ status: "success", output: "ok\n" });
    });
  });

  it("runs as the given user, scripts included", async () => {
    await withEnvironment({ user: "1000:1000" }, async (environment) => {
      const result = await executeCode({
        environment,
        transport: createTransport(),
        tools: builtinTools,
        code: 'import os\nfrom codecall import terminal\nprint(os.getuid(), terminal("id -u")["output"].strip())',
      });
      expect(result).toMatchObject({ status: "success", output: "1000 1000\n" });
    });
  });

  it("mounts host directories, read-only when asked", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-mount-"));
    await writeFile(path.join(dir, "from-host.txt"), "shared\n");
    try {
      await withEnvironment({ mounts: [`${dir}:/data:ro`], workdir: "/data" }, async (environment) => {
        const read = await environment.execute("cat from-host.txt");
        expect(read.stdout).toBe("shared\n");
        const write = await environment.execute("touch /data/x");
        expect(write.stderr).toMatch(/Read-only file system/);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
