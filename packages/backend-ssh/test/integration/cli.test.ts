// The built CLI drives the SSH backend: `codecall run --backend ssh -o key=value ...`. It runs
// from this package's directory, where the CLI's resolver finds the stream and file transports
// (dev dependencies here) next to this backend; "auto" picks the stream transport.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, repoRoot, sshd } from "./sshd.js";

const bin = path.join(repoRoot, "packages/cli/dist/bin.cjs");
const packageDir = path.join(repoRoot, "packages/backend-ssh");
const unavailable = sshd.unavailableReason ?? (existsSync(bin) ? undefined : `the CLI is not built (${bin}); run pnpm build`);

async function codecall(
  args: string[],
  script: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = promisify(execFile)(process.execPath, [bin, "run", ...args, "-"], { cwd: packageDir, timeout: 60_000, env });
  child.child.stdin!.end(script);
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** Runs the CLI on `script` and sends it `signal` once the script has printed its pid. */
function codecallSignalled(args: string[], script: string, signal: NodeJS.Signals): Promise<{ code: number | null; pid: number; stderr: string }> {
  const child = spawn(process.execPath, [bin, "run", ...args, "-"], { cwd: packageDir, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (/^\d+\n/.test(stdout) && !child.killed) child.kill(signal);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(script);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, pid: Number.parseInt(stdout, 10), stderr })));
}

describeIntegration("codecall run --backend ssh", unavailable, () => {
  const server = sshd.server!;
  const options = () => ["--backend", "ssh", "-o", `host=${server.host}`, "-o", `port=${server.port}`, "-o", `username=${server.user}`];

  it("runs the script on the host and prints the JSON result", async () => {
    const result = await codecall(
      [...options(), "-o", `privateKeyPath=${server.keyPath}`, "-o", `knownHostsPath=${server.knownHostsPath}`, "--json"],
      'from codecall import terminal\nprint(terminal("id -un")["output"].strip())\n',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "success",
      output: `${server.user}\n`,
      toolCallsMade: 1,
      backend: "ssh",
      transport: "stream",
    });
  });

  it("passes --env-passthrough NAME from the host and prints its value masked on the live output", async () => {
    const value = "cli-passed-api-key-6d5c4b3a2f1e";
    const result = await codecall(
      [
        ...options(),
        "-o",
        `privateKeyPath=${server.keyPath}`,
        "-o",
        `knownHostsPath=${server.knownHostsPath}`,
        "--env-passthrough",
        "CLI_PASSED_API_KEY",
      ],
      'import os, sys, time\nvalue = os.environ.get("CLI_PASSED_API_KEY", "")\nprint(len(value))\nsys.stdout.write(value[:12]); sys.stdout.flush(); time.sleep(0.3)\nprint(value[12:])\n',
      { ...process.env, CLI_PASSED_API_KEY: value },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${value.length}\ncli-pa...2f1e\n`);
  });

  it("reports a refused login clearly, without the password, even verbose", async () => {
    const password = "cli-SECRET-password-93b1";
    const result = await codecall([...options(), "-o", `password=${password}`, "-o", `knownHostsPath=${server.knownHostsPath}`, "-v"], "print(1)\n");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`ssh: ${server.user}@${server.host}:${server.port} refused the login (tried password)`);
    expect(result.stdout + result.stderr).not.toContain(password);
  });

  it.each([
    ["SIGHUP", 129],
    ["SIGTERM", 143],
  ] as const)(
    "on %s ends the script on the host before it exits %i",
    async (signal, exitCode) => {
      const args = [...options(), "-o", `privateKeyPath=${server.keyPath}`, "-o", `knownHostsPath=${server.knownHostsPath}`];
      const run = await codecallSignalled(args, "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(600)\n", signal);
      expect(run.code).toBe(exitCode);
      expect(run.stderr).toContain(`codecall: interrupted — Script was interrupted: interrupted by ${signal}`);
      expect(run.pid).toBeGreaterThan(1);
      const environment = await createEnvironment(connectionOptions(server));
      try {
        // Waits up to ~5 s for the process to go: the kill is done, but /proc may lag a reap.
        const check = await environment.execute(
          `i=0; while [ $i -lt 50 ]; do [ -d /proc/${run.pid} ] || exit 0; i=$((i+1)); sleep 0.1; done; cat /proc/${run.pid}/cmdline; exit 1`,
        );
        expect(check.exitCode, check.stdout).toBe(0);
      } finally {
        await environment.close();
      }
    },
    120_000,
  );
});
