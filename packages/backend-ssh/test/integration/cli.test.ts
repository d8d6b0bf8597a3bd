// The built CLI drives the SSH backend: `codecall run --backend ssh -o key=value ...`. It runs
// from this package's directory, where the CLI's resolver finds the stream and file transports
// (dev dependencies here) next to this backend; "auto" picks the stream transport.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { repoRoot, sshd } from "./sshd.js";

const bin = path.join(repoRoot, "packages/cli/dist/bin.js");
const packageDir = path.join(repoRoot, "packages/backend-ssh");
const unavailable = sshd.unavailableReason ?? (existsSync(bin) ? undefined : `the CLI is not built (${bin}); run pnpm build`);

async function codecall(args: string[], script: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = promisify(execFile)(process.execPath, [bin, "run", ...args, "-"], { cwd: packageDir, timeout: 60_000, env });
  child.child.stdin!.end(script);
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describeIntegration("codecall run --backend ssh", unavailable, () => {
  const server = sshd.server!;
  const options = () => [
    "--backend", "ssh",
    "-o", `host=${server.host}`,
    "-o", `port=${server.port}`,
    "-o", `username=${server.user}`,
  ];

  it("runs the script on the host and prints the JSON result", async () => {
    const result = await codecall(
      [...options(), "-o", `privateKeyPath=${server.keyPath}`, "-o", `knownHostsPath=${server.knownHostsPath}`, "--json"],
      'from codecall import terminal\nprint(terminal("id -un")["output"].strip())\n',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "success", output: `${server.user}\n`, toolCallsMade: 1, backend: "ssh", transport: "stream" });
  });

  it("passes --env-passthrough NAME from the host and prints its value masked on the live output", async () => {
    const value = "cli-passed-api-key-6d5c4b3a2f1e";
    const result = await codecall(
      [...options(), "-o", `privateKeyPath=${server.keyPath}`, "-o", `knownHostsPath=${server.knownHostsPath}`, "--env-passthrough", "CLI_PASSED_API_KEY"],
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
});
