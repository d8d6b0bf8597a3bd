// `codecall run --backend docker` through the built CLI: options from -o flags and from a config
// file reach the backend, a wrong option is refused with its name, and SIGTERM removes the container.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const cliBin = path.join(packageDir, "../cli/dist/bin.cjs");

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI from this package's directory, where the resolver finds @codecall/backend-docker
 * (by self-reference) and the stream and file transports (dev dependencies) as a user's project would.
 */
function codecall(args: string[], stdin: string, onStdout?: (text: string, child: ChildProcess) => void): Promise<CliRun> {
  const child = spawn(process.execPath, [cliBin, "run", ...args], { cwd: packageDir, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(stdout, child);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describeIntegration("codecall run --backend docker", dockerUnavailable, () => {
  let dir: string;

  beforeAll(async () => {
    if (!existsSync(cliBin)) throw new Error(`${cliBin} is missing: build the workspace first (pnpm build)`);
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-docker-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs a script in a container with options from -o flags, its tool calls acting there", async () => {
    const script =
      'import os, socket\nfrom codecall import terminal\nprint(terminal("hostname")["output"].strip() == socket.gethostname(), terminal("cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max")["output"].strip())';
    const run = await codecall(
      ["--backend", "docker", "-o", `image=${TEST_IMAGE}`, "-o", "pidsLimit=100", "-o", "network=none", "--transport", "file", "--json", "-"],
      script,
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "success", output: "True 100\n", toolCallsMade: 2, backend: "docker", transport: "file" });
  });

  it("takes backendOptions from a config file, and auto picks the stream transport", async () => {
    const config = path.join(dir, "codecall.json");
    await writeFile(
      config,
      JSON.stringify({ backend: "docker", backendOptions: { image: TEST_IMAGE, env: { CODECALL_FROM_CONFIG: "yes" }, workdir: "/tmp" } }),
    );
    const run = await codecall(
      ["--config", config, "--env-passthrough", "CODECALL_FROM_CONFIG", "--json", "-"],
      'import os\nprint(os.environ["CODECALL_FROM_CONFIG"], os.getcwd())',
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "success", output: "yes /tmp\n", transport: "stream" });
  });

  it("refuses an unknown docker option, naming it", async () => {
    const run = await codecall(["--backend", "docker", "-o", `imgae=${TEST_IMAGE}`, "-"], "print(1)");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Unknown docker option "imgae"/);
  });

  it("says that the uds transport needs the local backend", async () => {
    const run = await codecall(["--backend", "docker", "-o", `image=${TEST_IMAGE}`, "--transport", "uds", "-"], "print(1)");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No transport supports the docker backend (tried: uds): uds needs the local backend");
    expect(run.stderr).not.toContain("install @codecall/transport-file");
  });

  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "on %s kills the script, removes the container and exits %i",
    async (signal, exitCode) => {
      const mark = randomUUID();
      let sent = false;
      const run = await codecall(
        ["--backend", "docker", "-o", `image=${TEST_IMAGE}`, "-o", `labels.codecall-cli-test=${mark}`, "-"],
        "import time\nprint('ready', flush=True)\ntime.sleep(600)\n",
        (text, child) => {
          if (!sent && text.includes("ready")) {
            sent = true;
            child.kill(signal);
          }
        },
      );
      expect(run.code).toBe(exitCode);
      expect(run.stderr).toContain(`codecall: interrupted — Script was interrupted: interrupted by ${signal}`);
      const left = await new Docker().listContainers({ all: true, filters: { label: [`codecall-cli-test=${mark}`] } });
      expect(left.map((container) => container.Id)).toEqual([]);
    },
    120_000,
  );
});
